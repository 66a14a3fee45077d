"""The base classes fix adds for 1.8's user-extended decays raise, as 1.8.5 did, a
NotImplementedError when a subclass leaves out the method it must define, and say which."""
import pytest

from compat._added import added


def test_decay_without_step_names_the_missing_method():
    base = added("lr_decay_base", "_FluidLearningRateDecay")

    class NoStep(base):
        pass

    decay = NoStep()
    with pytest.raises(NotImplementedError, match=r"NoStep\.step\(\) is not defined"):
        decay()


def test_epoch_decay_without_get_lr_names_the_missing_method():
    from upgrader.fixers import lr_decay_classes
    base = added("lr_decay_classes", lr_decay_classes.EPOCH_BASE)

    class NoRate(base):
        pass

    with pytest.raises(NotImplementedError, match=r"NoRate\.get_lr\(\) is not defined"):
        NoRate(0.1)
