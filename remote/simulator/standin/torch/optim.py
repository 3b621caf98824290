"""torch.optim of the stand-in (simulated): Optimizer and SGD with PyTorch's shape, so
the launcher's wrapping of Optimizer.step and of each optimizer class's own step() is exercised
as on a real PyTorch (SGD defines its own step(), as torch's does)."""


class Optimizer(object):
    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.param_groups = [{"params": list(params)}]
        self.param_groups[0].update(self.defaults)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None if set_to_none else [0.0] * len(p)

    def step(self, closure=None):
        raise NotImplementedError


class SGD(Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.0):
        Optimizer.__init__(self, params, {"lr": lr, "momentum": momentum})

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.data = [v - group["lr"] * g for v, g in zip(p.data, p.grad)]
        return loss
