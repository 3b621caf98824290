"""torch.cuda of the stand-in: no GPU (simulated); the launcher never synchronises it."""


def is_available():
    return False


def is_initialized():
    return False


def synchronize(device=None):
    pass
