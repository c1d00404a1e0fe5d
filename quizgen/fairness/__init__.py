"""Were the versions fair? What each version of a question is like (its *features*, known before
anyone sits the exam), how much each feature moved the chance of a right answer in a graded class,
and a sheet that draws versions of even predicted difficulty.

Its rooms, each below the grader and the sheet (neither imports the other):

* `features`: the variant features of one saved problem (cell, GPU, which limits bind, the trap,
  the worked solution's steps, a level-3 extra, yes/no outcomes, the answers' digits);
* `model`: a fitted (or prior) model of a question's expected points from those features, in
  plain Python, as the sheet uses it while it draws;
* `calibration`: the calibration file ``quizgen grade`` writes (each student's boxes and paper
  features, anonymous) and ``quizgen sheet --calibrate`` reads, with its checks;
* `fit`: the statistics (statsmodels): a test per feature, an estimate in points with its
  interval, the joint model per question, the smallest effect a class can detect;
* `simulate`: classes with planted effects, graded by the real grader (tests and bench).

Nothing here is imported by ``quizgen --help`` or by generation; `fit` alone needs the
``stats`` extra (``pip install 'quizgen[stats]'``).
"""
