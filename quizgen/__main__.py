from quizgen.launch import main

main()
