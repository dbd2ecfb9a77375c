"""Records a real CUDA memory snapshot of a small training loop for the GPU
check: torch.cuda.memory._record_memory_history(), a few steps (one tensor
kept alive from before recording began), _dump_snapshot(OUT), in the
pickle protocol of this Python (5 on 3.14, 4 before).

    python3 memory_snapshot.py OUT.pickle [steps]
"""
import sys

import torch


def main():
    out = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    before = torch.empty(8 << 20, dtype=torch.uint8, device="cuda")  # Live before recording.
    torch.cuda.memory._record_memory_history(max_entries=100000)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 1024, device="cuda")
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        model(x).square().mean().backward()
        opt.step()
    del before
    torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(out)
    torch.cuda.memory._record_memory_history(enabled=None)
    print(f"{out}: max_memory_allocated {torch.cuda.max_memory_allocated()} bytes")


if __name__ == "__main__":
    main()
