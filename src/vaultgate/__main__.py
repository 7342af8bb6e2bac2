"""python -m vaultgate"""

import sys

from vaultgate.cli import main

sys.exit(main())
