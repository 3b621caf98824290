"""torch.nn of the stand-in: Parameter only (simulated)."""


def Parameter(tensor, requires_grad=True):
    tensor.requires_grad = requires_grad
    return tensor
