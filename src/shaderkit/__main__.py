from shaderkit.cli import main

main()
