from desktop.ui.app import main

raise SystemExit(main())
