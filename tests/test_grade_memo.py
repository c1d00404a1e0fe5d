"""What grading remembers stays within its bound however many answers pass, and keeps the
answers asked for again and again (`quizgen.grade.memo.Memo`)."""

from quizgen.grade.memo import Memo


def test_memo_holds_at_most_twice_its_limit_and_keeps_what_is_asked_again():
    memo = Memo(limit=8)
    worked = []

    def work(text):
        worked.append(text)
        return text.upper()

    for i in range(1000):
        assert memo(("judged", f"answer {i}"), work, f"answer {i}") == f"ANSWER {i}"
        assert memo(("judged", "8"), work, "8") == "8"     # the answer most students write
        assert len(memo) <= 16
    assert worked.count("8") == 1                 # worked out once, never let go
    assert len(worked) == 1001
    # a value asked for once long ago is gone and is worked out again
    memo(("judged", "answer 0"), work, "answer 0")
    assert worked[-1] == "answer 0" and len(worked) == 1002


def test_memo_holding_names_its_value_by_the_object_it_holds():
    memo = Memo(limit=2)
    first, second = object(), object()
    assert memo.holding(("box", 1), first, lambda: "a") == "a"
    assert memo.holding(("box", 1), first, lambda: "b") == "a"
    assert memo.holding(("box", 1), second, lambda: "c") == "c"   # another object, same key
    memo.clear()
    assert len(memo) == 0
