from lossless.cli.main import main

raise SystemExit(main())
