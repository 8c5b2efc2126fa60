from clawharness.cli.entry import main

main()
