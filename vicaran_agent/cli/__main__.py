"""`python -m vicaran_agent.cli`: the `vicaran` command."""

import sys

from vicaran_agent.cli import main

sys.exit(main())
