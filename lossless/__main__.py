from lossless.cli import main

raise SystemExit(main())
