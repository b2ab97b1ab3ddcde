# case: 1024-1024-1024-10 MLP on CUDA, eager vs torch.compile timing over 100 calls with torch.cuda.synchronize (warm-up call before the compiled timing)
# category: seed
# from: 002_2cad80cdf2d10311.txt, section "3. 实测"
# requires: cuda
import torch
import time

torch.manual_seed(0)  # added: deterministic random weights/inputs for comparison

# Define a simple model
class SimpleModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(1024, 1024),
            torch.nn.ReLU(),
            torch.nn.Linear(1024, 1024),
            torch.nn.ReLU(),
            torch.nn.Linear(1024, 10),
        )

    def forward(self, x):
        return self.layers(x)

# Create model and input data
model = SimpleModel().cuda()
x = torch.randn(1024, 1024, device="cuda")

# Benchmark standard model
def benchmark_standard():
    torch.cuda.synchronize()
    start_time = time.time()
    for _ in range(100):
        model(x)
    torch.cuda.synchronize()
    return time.time() - start_time

# Benchmark compiled model
compiled_model = torch.compile(model)

def benchmark_compiled():
    # First run to compile
    compiled_model(x)
    torch.cuda.synchronize()

    start_time = time.time()
    for _ in range(100):
        compiled_model(x)
    torch.cuda.synchronize()
    return time.time() - start_time

# Run benchmarks
standard_time = benchmark_standard()
compiled_time = benchmark_compiled()

print(f"Standard model: {standard_time:.4f} seconds")
print(f"Compiled model: {compiled_time:.4f} seconds")
print(f"Speedup: {standard_time/compiled_time:.2f}x")
