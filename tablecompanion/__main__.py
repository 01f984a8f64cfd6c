from tablecompanion.cli import main

raise SystemExit(main())
