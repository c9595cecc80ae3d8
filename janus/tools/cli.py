"""What every janus console script shares."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from janus.runtime.versions import describe


class _Version(argparse.Action):
    """Prints the versions on one line (argparse's own action rewraps the text)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(f"{parser.prog}: {describe()}")
        sys.exit(0)


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: Janus and IREE versions, the first thing a bug report needs."""
    parser.add_argument("--version", nargs=0, action=_Version, help="print Janus and IREE versions and exit")
