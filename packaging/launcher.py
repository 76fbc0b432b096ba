"""The frozen bundle's entry script: exactly what the ``lnl-desktop`` command runs.

With ``LNL_BUNDLE_SELF_CHECK=1`` in the environment it runs packaging/bundle_self_check.py
instead (packaging/smoke_test.py sets it to check the trimmed bundle); nothing else sets it.
"""

import os
import sys

if __name__ == "__main__":
    if os.environ.get("LNL_BUNDLE_SELF_CHECK") == "1":
        import bundle_self_check

        sys.exit(bundle_self_check.main())
    from lnl_desktop.__main__ import main

    sys.exit(main())
