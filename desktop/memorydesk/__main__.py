from memorydesk.cli import main

raise SystemExit(main())
