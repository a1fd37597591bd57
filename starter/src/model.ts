// What a model says and hears: the message and response shapes, and the providers.
