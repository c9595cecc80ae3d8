"""Python heap state in graphs: which locations, how they are read, written and checked."""
