"""IREE compilation, module loading and calls, guard failures, heap commit."""
