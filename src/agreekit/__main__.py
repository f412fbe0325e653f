import sys

from agreekit.cli import main

sys.exit(main())
