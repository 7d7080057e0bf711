# Samples the board energy counter (NVML, the counter DeviceSensors reads) every half millisecond
# for 3 s and prints each change: how often the driver updates it, which bounds the shortest
# timed run that gets an energy figure. Run it beside a busy GPU (e.g. a long bench).
import ctypes, time
n = ctypes.CDLL("libnvidia-ml.so.1")
assert n.nvmlInit_v2() == 0
h = ctypes.c_void_p()
assert n.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
e = ctypes.c_ulonglong()
last = None; t0 = time.time(); changes = []
while time.time() - t0 < 3.0:
    n.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(e))
    if e.value != last:
        changes.append((time.time() - t0, e.value)); last = e.value
    time.sleep(0.0005)
print("counter changes:", len(changes))
for a, b in zip(changes, changes[1:]):
    print(f"{b[0]*1000:8.1f} ms  +{b[1]-a[1]} mJ  after {1000*(b[0]-a[0]):.1f} ms")
