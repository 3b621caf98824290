"""A stand-in for PyTorch on the simulated Jetson (simulated: it computes nothing).

Just enough of torch's shape for sim_train.py's `--log none` and for the agent's launcher
(remote/agent/ptwb_launch.py) to be driven end to end without PyTorch installed: torch.zeros,
torch.nn.Parameter, torch.optim.Optimizer with step()/zero_grad(), torch.optim.SGD,
torch.cuda.is_available() -> False. The simulated Jetson puts its directory (standin/) first on
PYTHONPATH; a real PyTorch is never shadowed anywhere else.
"""

from . import cuda, nn, optim

__all__ = ["Tensor", "cuda", "nn", "optim", "zeros"]

__version__ = "0.0+simulated"
SIMULATED = True


class Tensor(object):
    """A list of floats with a grad: all the stand-in optimizers need."""

    def __init__(self, values):
        self.data = [float(v) for v in values]
        self.grad = None

    def __len__(self):
        return len(self.data)


def zeros(n):
    return Tensor([0.0] * int(n))
