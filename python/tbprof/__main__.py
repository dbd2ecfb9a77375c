"""`python -m tbprof ...` is the `tbprof` command."""

import sys

from tbprof._cli import main

sys.exit(main())
