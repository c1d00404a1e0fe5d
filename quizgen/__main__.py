from quizgen.cli import main

main()
