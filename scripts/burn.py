"""Run a command beside processes that burn CPU, and stop them when it ends (`make test-stress`).

    python scripts/burn.py --burners 2 -- uv run pytest -n auto

The burners are this script's children: they are stopped when the command ends, however it
ends (an error, Ctrl-C), and each also stops by itself when its parent is gone or after
`--seconds`. The exit status is the command's.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import time


def burn(parent: int, seconds: float) -> None:
    """Spin until the parent is gone or `seconds` have passed."""
    stop = time.monotonic() + seconds
    spins = 0
    while True:
        spins += 1
        if spins % 1_000_000 == 0 and (os.getppid() != parent or time.monotonic() > stop):
            return


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--burners", type=int, default=2, help="CPU-burning processes")
    options.add_argument("--seconds", type=float, default=3600.0, help="the longest they burn")
    options.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")
    args = options.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        options.error("give the command to run after --")
    burners = [
        multiprocessing.Process(target=burn, args=(os.getpid(), args.seconds), daemon=True)
        for _ in range(max(0, args.burners))
    ]
    try:
        for burner in burners:
            burner.start()
        print(f"burn.py: {len(burners)} CPU-burning process(es) beside: {' '.join(command)}")
        process = subprocess.Popen(command)
        try:
            return process.wait()
        except KeyboardInterrupt:
            process.send_signal(signal.SIGINT)
            return process.wait()
    finally:
        for burner in burners:
            if burner.pid is not None:
                burner.terminate()
        for burner in burners:
            if burner.pid is not None:
                burner.join(timeout=5)


if __name__ == "__main__":
    sys.exit(main())
