"""The command line's main jobs as functions for notebooks: search, query and export run the
installed `gemmtune` binary with --json and return what it printed, parsed. The binary is
`binary=`, else $GEMMTUNE_BIN, else `gemmtune` on PATH."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Iterable, Optional, Sequence, Union

from ._errors import GemmError

PathLike = Union[str, os.PathLike]


class CliError(GemmError):
    """The gemmtune binary was not found, or exited with an error; `returncode` and `stderr`
    say how."""

    def __init__(self, message: str, returncode: int = -1, stderr: str = ""):
        super().__init__(message, "cli_error")
        self.returncode = returncode
        self.stderr = stderr


def find_binary(binary: Optional[PathLike] = None) -> str:
    """The gemmtune binary to run: `binary`, $GEMMTUNE_BIN or PATH's."""
    path = os.fspath(binary) if binary is not None else os.environ.get("GEMMTUNE_BIN")
    path = path or shutil.which("gemmtune")
    if not path or not os.access(path, os.X_OK):
        raise CliError("gemmtune: no gemmtune binary (pass binary=, set GEMMTUNE_BIN or put it "
                       f"on PATH){': ' + path + ' is not executable' if path else ''}")
    return path


def run(args: Sequence[str], *, db: Optional[PathLike] = None,
        binary: Optional[PathLike] = None, timeout: Optional[float] = None,
        ok_codes: Sequence[int] = (0, 3)):
    """`gemmtune [--db DB] --json ARGS...`, its stdout parsed as JSON (None for a command that
    printed nothing, as one writing a file does). By default exit code 3 (a problem without a
    result) still returns the report; any code outside `ok_codes` raises CliError."""
    command = [find_binary(binary)]
    if db is not None:
        command += ["--db", os.fspath(db)]
    command += ["--json", "-q", *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode not in ok_codes:
        tail = done.stderr.strip().splitlines()[-5:]
        raise CliError(f"gemmtune: `{' '.join(command[1:])}` exited with {done.returncode}: "
                       + " / ".join(tail), done.returncode, done.stderr)
    if not done.stdout.strip():
        return None
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as e:
        raise CliError(f"gemmtune: `{' '.join(command[1:])}` printed no JSON: {e}",
                       done.returncode, done.stderr) from e


def _shape_args(shapes: Union[str, Iterable]) -> list:
    if isinstance(shapes, str):
        shapes = [shapes]
    out = []
    for s in shapes:
        out += ["--shape", s if isinstance(s, str) else "x".join(str(int(v)) for v in s)]
    return out


def search(shapes, *, precision: str = "fp32", layout: str = "NN",
           budget: Optional[str] = None, family: Optional[str] = None,
           extra: Sequence[str] = (), db: Optional[PathLike] = None,
           binary: Optional[PathLike] = None, timeout: Optional[float] = None) -> dict:
    """Tunes `shapes` ("MxNxK", (M, N, K) or a list of them) on the local GPU; the search's
    report (best kernel and vendor ratios per problem)."""
    args = ["search", *_shape_args(shapes), "--precision", precision, "--layout", layout]
    if budget is not None:
        args += ["--budget", str(budget)]
    if family is not None:
        args += ["--family", family]
    return run([*args, *extra], db=db, binary=binary, timeout=timeout)


def query(shape, *, precision: str = "fp32", layout: str = "NN",
          table: Optional[PathLike] = None, db: Optional[PathLike] = None,
          extra: Sequence[str] = (), binary: Optional[PathLike] = None) -> dict:
    """The best kernel for one shape, from the cache (`db`) or a table (`table`)."""
    args = ["query", *_shape_args([shape]), "--precision", precision, "--layout", layout]
    if table is not None:
        args += ["--table", os.fspath(table)]
    return run([*args, *extra], db=db, binary=binary)


def export(out: PathLike, *, precision: Optional[str] = None, db: Optional[PathLike] = None,
           extra: Sequence[str] = (), binary: Optional[PathLike] = None) -> dict:
    """Writes the cache's tuning table to `out` and returns it, parsed."""
    args = ["export", "--out", os.fspath(out)]
    if precision is not None:
        args += ["--precision", precision]
    run([*args, *extra], db=db, binary=binary, ok_codes=(0,))
    with open(out, encoding="utf-8") as f:
        return json.load(f)
