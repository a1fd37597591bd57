// The agent loop: ask the model, run the tools it asks for, hand the results back.
