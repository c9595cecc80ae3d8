"""Progress of a janus-bench run: runs done, elapsed time and ETA (tqdm).

On a terminal a live bar names the run and step under way; in a log (not a terminal)
each finished run is one line, as ``\\r`` updates would be noise there.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm

#: A log line: ``reinforce: agrees: 2/4 [00:12<00:12]`` (elapsed<remaining).
LOG_FORMAT = "{desc}: {n_fmt}/{total_fmt} [{elapsed}<{remaining}]"


class Progress:
    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total, self.stream, self.done = total, stream, 0
        self.start = time.monotonic()
        self.bar = tqdm(total=total, file=stream, unit="run", dynamic_ncols=True, disable=not stream.isatty())

    def show(self, label: str) -> None:
        """The run ``label`` started."""
        self.bar.set_description_str(label)

    def step(self, text: str) -> None:
        """Where the current run is (terminal only)."""
        self.bar.set_postfix_str(text)

    def finish(self, label: str) -> None:
        """A run ended; ``label`` says how."""
        self.done += 1
        if self.bar.disable:
            line = tqdm.format_meter(self.done, self.total, time.monotonic() - self.start, prefix=label,
                                     bar_format=LOG_FORMAT)
            self.stream.write(line + "\n")
            self.stream.flush()
        else:
            self.bar.set_description_str(label)
            self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
