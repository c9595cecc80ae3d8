"""Small NumPy deep-learning programs written the way different people write them (not
like the model zoo in ``janus/models``): tests run them unchanged, with ``janus.jit``
added from outside, against the same code run by Python."""
