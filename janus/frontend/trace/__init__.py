"""The bytecode interpreter: one handler per opcode, branches, loops, calls, scalars."""
