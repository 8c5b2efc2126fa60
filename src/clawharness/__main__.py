from clawharness.cli.main import main

main()
