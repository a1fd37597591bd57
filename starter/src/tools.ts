// Tools the model may ask for, and the registry that runs them by name.
