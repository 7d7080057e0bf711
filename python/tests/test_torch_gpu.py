"""On a GPU with torch: results against torch.matmul in every precision and layout (with and
without a table), transposed views, the custom op under opcheck, torch.compile(fullgraph=True)
and CUDA-graph capture. Skipped where there is no GPU or no torch."""
import os

import pytest

from conftest import HAS_GPU, REPO

torch = pytest.importorskip("torch") if HAS_GPU else None
pytestmark = pytest.mark.skipif(not HAS_GPU or torch is None or not torch.cuda.is_available(),
                                reason="needs a CUDA device and torch")

import gemmtune  # noqa: E402

DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}
# Tables of the H200's tuned shapes; elsewhere their entries simply do not match the GPU.
TABLES = {p: REPO / "bench" / "results" / f"2026-12-03-h200-{p}-g-a.table.json"
          for p in ("fp32", "tf32", "fp16")}
TABLES["bf16"] = REPO / "bench" / "results" / "2026-12-03-h200-bf16-h-a.table.json"


def reference(a, b, trans_a, trans_b):
    ad = a.double().t() if trans_a else a.double()
    bd = b.double().t() if trans_b else b.double()
    return ad @ bd


def tolerance(precision, k):
    # Per element, relative to sqrt(K)·|a||b| scale: the inputs are N(0, 1), so the reference's
    # entries are of size sqrt(K); half-precision outputs round to 2^-8 or 2^-11 of that.
    unit = {"fp32": 1e-6, "tf32": 2e-3, "fp16": 2e-3, "bf16": 1.6e-2}[precision]
    return 8 * unit * k ** 0.5


@pytest.fixture(scope="module")
def runtimes():
    out = {None: gemmtune.Runtime()}
    for p, path in TABLES.items():
        if path.exists():
            out[p] = gemmtune.Runtime(path)
    return out


@pytest.mark.parametrize("precision", ["fp32", "tf32", "fp16", "bf16"])
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (False, True), (True, False),
                                              (True, True)])
@pytest.mark.parametrize("shape", [(256, 512, 128), (1024, 1024, 1024), (37, 129, 65)])
def test_matches_torch_matmul(runtimes, precision, trans_a, trans_b, shape):
    m, n, k = shape
    dtype = getattr(torch, DTYPES[precision])
    g = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
    a = torch.randn((k, m) if trans_a else (m, k), device="cuda", dtype=dtype, generator=g)
    b = torch.randn((n, k) if trans_b else (k, n), device="cuda", dtype=dtype, generator=g)
    want = reference(a, b, trans_a, trans_b)
    for rt in {runtimes[None], runtimes.get(precision, runtimes[None])}:
        got, info = rt.matmul(a, b, trans_a=trans_a, trans_b=trans_b,
                              precision="tf32" if precision == "tf32" else None, info=True)
        torch.cuda.synchronize()
        assert info.status == "ok" and info.path in ("tuned", "cublas", "cublaslt"), info
        assert got.shape == (m, n) and got.dtype == dtype
        err = (got.double() - want).abs().max().item()
        assert err <= tolerance(precision, k), (info, err)


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_the_fast_path_runs_what_the_general_path_runs(runtimes, precision, monkeypatch):
    # Plain row-major tensors take the fast path (no Operand is built: the general path's
    # reader is made to fail), and give bit for bit what the general path (info=True) gives.
    import gemmtune._runtime_api as api
    general_operand = api.operand

    def no_general_path(*args, **kwargs):
        raise AssertionError("the general path ran")

    dtype = getattr(torch, DTYPES[precision])
    rt = runtimes.get(precision, runtimes[None])
    for trans_a in (False, True):
        for trans_b in (False, True):
            for m, n, k in ((256, 512, 128), (37, 129, 65)):
                g = torch.Generator(device="cuda").manual_seed(m + n + k)
                a = torch.randn((k, m) if trans_a else (m, k), device="cuda", dtype=dtype,
                                generator=g)
                b = torch.randn((n, k) if trans_b else (k, n), device="cuda", dtype=dtype,
                                generator=g)
                c0 = torch.randn(m, n, device="cuda", dtype=dtype, generator=g)
                monkeypatch.setattr(api, "operand", no_general_path)
                fast = rt.matmul(a, b, trans_a=trans_a, trans_b=trans_b)
                fast_out = c0.clone()
                rt.matmul(a, b, fast_out, alpha=0.5, beta=2.0, trans_a=trans_a,
                          trans_b=trans_b)
                monkeypatch.setattr(api, "operand", general_operand)
                general, info = rt.matmul(a, b, trans_a=trans_a, trans_b=trans_b, info=True)
                general_out = c0.clone()
                rt.matmul(a, b, general_out, alpha=0.5, beta=2.0, trans_a=trans_a,
                          trans_b=trans_b, info=True)
                torch.cuda.synchronize()
                what = (precision, trans_a, trans_b, m, n, k, info.kernel)
                assert torch.equal(fast, general), what
                assert torch.equal(fast_out, general_out), what


def test_transposed_views_and_padded_rows_need_no_copy(runtimes):
    a_store = torch.randn(512, 300, device="cuda", dtype=torch.float16)[:, :256]  # lda 300
    b_store = torch.randn(384, 256, device="cuda", dtype=torch.float16)
    a, b = a_store, b_store.t()  # b: a 256×384 view of a row-major 384×256 matrix
    out = torch.empty(512, 384, device="cuda", dtype=torch.float16)
    got = runtimes[None].matmul(a, b, out)
    assert got.data_ptr() == out.data_ptr()
    torch.cuda.synchronize()
    assert (got.double() - a.double() @ b.double()).abs().max().item() <= tolerance("fp16", 256)
    with pytest.raises(gemmtune.ArgumentError, match="make it contiguous"):
        runtimes[None].matmul(a[:, ::2], torch.randn(128, 8, device="cuda",
                                                     dtype=torch.float16))


def test_alpha_beta_and_the_stream(runtimes):
    a = torch.randn(128, 64, device="cuda")
    b = torch.randn(64, 96, device="cuda")
    c0 = torch.randn(128, 96, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())  # a, b and c0 were made on the current stream
    with torch.cuda.stream(s):
        out = c0.clone()
        runtimes[None].matmul(a, b, out, alpha=0.5, beta=2.0)
    s.synchronize()
    want = 0.5 * (a.double() @ b.double()) + 2.0 * c0.double()
    assert (out.double() - want).abs().max().item() <= tolerance("fp32", 64)


def test_errors_on_gpu_tensors(runtimes):
    a = torch.randn(8, 4, device="cuda")
    with pytest.raises(gemmtune.DeviceError, match="cpu"):
        runtimes[None].matmul(a, torch.randn(4, 8))
    with pytest.raises(gemmtune.DtypeError, match="float64"):
        runtimes[None].matmul(a.double(), torch.randn(4, 8, device="cuda").double())
    with pytest.raises(gemmtune.ArgumentError, match="2-D"):
        runtimes[None].matmul(a[None], torch.randn(4, 8, device="cuda"))


def test_custom_op_opcheck_compile_and_graph(runtimes):
    import gemmtune.torch_op  # noqa: F401
    gemmtune.set_default_runtime(runtimes.get("bf16", runtimes[None]))
    try:
        a = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(1024, 512, device="cuda", dtype=torch.bfloat16)
        torch.library.opcheck(torch.ops.gemmtune.matmul.default, (a, w, 1.0, False, True))
        af = torch.randn(64, 32, device="cuda", requires_grad=True)
        wf = torch.randn(48, 32, device="cuda", requires_grad=True)
        torch.library.opcheck(torch.ops.gemmtune.matmul.default, (af, wf, 2.0, False, True))

        def f(x, weight):
            return torch.ops.gemmtune.matmul(x, weight, 1.0, False, True).relu()

        compiled = torch.compile(f, fullgraph=True)
        want = (a.double() @ w.double().t()).relu()
        got = compiled(a, w)
        torch.cuda.synchronize()
        assert (got.double() - want).abs().max().item() <= tolerance("bf16", 512)

        # Capture of a shape the bf16 table holds (128x4096x4096 NN, exact): a first call on
        # the capturing stream, outside the graph, compiles and loads the kernel and sets up the
        # stream's workspace; the replay then runs it on new inputs.
        x = torch.randn(128, 4096, device="cuda", dtype=torch.bfloat16)
        y = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(128, 4096, device="cuda", dtype=torch.bfloat16)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            _, info = gemmtune.matmul(x, y, out, info=True)
        s.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=s):
            gemmtune.matmul(x, y, out)
        x.copy_(torch.randn_like(x))
        graph.replay()
        torch.cuda.synchronize()
        want = x.double() @ y.double()
        assert (out.double() - want).abs().max().item() <= tolerance("bf16", 4096), info
    finally:
        gemmtune.set_default_runtime(None)


@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (False, True), (True, False),
                                              (True, True)])
def test_the_op_s_gradients_match_torch(runtimes, trans_a, trans_b):
    import gemmtune.torch_op  # noqa: F401
    gemmtune.set_default_runtime(runtimes[None])
    try:
        m, n, k = 96, 80, 64
        a = torch.randn((k, m) if trans_a else (m, k), device="cuda", requires_grad=True)
        b = torch.randn((n, k) if trans_b else (k, n), device="cuda", requires_grad=True)
        w = torch.randn(m, n, device="cuda")
        (torch.ops.gemmtune.matmul(a, b, 0.5, trans_a, trans_b) * w).sum().backward()
        ad, bd = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
        ref = 0.5 * (ad.t() if trans_a else ad) @ (bd.t() if trans_b else bd)
        (ref * w.double()).sum().backward()
        assert (a.grad.double() - ad.grad).abs().max().item() <= tolerance("fp32", n)
        assert (b.grad.double() - bd.grad).abs().max().item() <= tolerance("fp32", m)
    finally:
        gemmtune.set_default_runtime(None)


@pytest.mark.skipif(HAS_GPU and torch is not None and torch.cuda.is_available() and
                    torch.cuda.get_device_capability() < (8, 9),
                    reason="FP8 needs sm_89 or later")
def test_fp8_with_per_tensor_scales(runtimes):
    # e4m3 a (M×K) and the transpose of an N×K weight, as torch.nn.Linear stores it; bf16 out.
    m, n, k = 256, 512, 1024
    g = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn((m, k), device="cuda", generator=g).to(torch.float8_e4m3fn)
    w = torch.randn((n, k), device="cuda", generator=g).to(torch.float8_e4m3fn)
    scale_a = torch.tensor([0.5], device="cuda")
    scale_b = torch.tensor([0.25], device="cuda")
    want = 0.5 * 0.25 * (a.double() @ w.double().t())
    got, info = runtimes[None].matmul(a, w, trans_b=True, scale_a=scale_a, scale_b=scale_b,
                                      info=True)
    torch.cuda.synchronize()
    assert got.dtype == torch.bfloat16 and got.shape == (m, n)
    assert info.status == "ok" and info.path == "cublaslt" and "heuristic" in info.detail, info
    assert (got.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3
    # beta reads out; a raw pointer is a scale too.
    out = torch.ones((m, n), device="cuda", dtype=torch.bfloat16)
    runtimes[None].matmul(a, w, out, trans_b=True, beta=2.0, scale_a=scale_a.data_ptr(),
                          scale_b=scale_b)
    torch.cuda.synchronize()
    assert (out.double() - (want + 2.0)).abs().max().item() <= 1e-2 * want.abs().max().item() + 2e-2
    with pytest.raises(gemmtune.ArgumentError, match="need scale_a and scale_b"):
        runtimes[None].matmul(a, w, trans_b=True)
    with pytest.raises(gemmtune.DtypeError, match="writes bfloat16 output"):
        runtimes[None].matmul(a, w, torch.empty((m, n), device="cuda"), trans_b=True,
                              scale_a=scale_a, scale_b=scale_b)
    # B stored K×N (layout NN): our kernels copy it K-major first, but with no table entry the
    # call is cuBLASLt's, which on Hopper reads FP8 only as our NT: it runs right or says so.
    try:
        got = runtimes[None].matmul(a, w.t().contiguous(), scale_a=scale_a, scale_b=scale_b)
    except gemmtune.GemmError as e:
        assert "no FP8 default" in str(e), e
    else:
        torch.cuda.synchronize()
        assert (got.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3


@pytest.mark.skipif(HAS_GPU and torch is not None and torch.cuda.is_available() and
                    torch.cuda.get_device_capability() < (8, 9),
                    reason="FP8 needs sm_89 or later")
def test_fp8_with_row_wise_scales(runtimes):
    # A scale per row of a and per column of the product (per output channel of the weight),
    # as torch._scaled_mm's row-wise mode: taken from the tensors' sizes, or asked for by name.
    m, n, k = 192, 256, 512
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn((m, k), device="cuda", generator=g).to(torch.float8_e4m3fn)
    w = torch.randn((n, k), device="cuda", generator=g).to(torch.float8_e4m3fn)
    scale_a = torch.rand((m,), device="cuda", generator=g) + 0.5
    scale_b = torch.rand((n,), device="cuda", generator=g) + 0.5
    want = scale_a.double()[:, None] * scale_b.double()[None, :] * (a.double() @ w.double().t())
    got, info = runtimes[None].matmul(a, w, trans_b=True, scale_a=scale_a, scale_b=scale_b,
                                      info=True)
    torch.cuda.synchronize()
    assert got.dtype == torch.bfloat16 and info.status == "ok", info
    assert (got.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3
    out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    runtimes[None].matmul(a, w, out, trans_b=True, precision="e4m3-row",
                          scale_a=scale_a.data_ptr(), scale_b=scale_b.data_ptr())
    torch.cuda.synchronize()
    assert (out.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3
    with pytest.raises(gemmtune.ArgumentError, match="row-wise FP8 scales"):
        runtimes[None].matmul(a, w, trans_b=True, scale_a=scale_a, scale_b=scale_b[:1])


@pytest.mark.skipif(HAS_GPU and torch is not None and torch.cuda.is_available() and
                    torch.cuda.get_device_capability() < (8, 9),
                    reason="FP8 needs sm_89 or later")
def test_fp8_with_block_scales(runtimes):
    # DeepSeek-style block scales in torch's blockwise layouts: a scale per row of a and 128 of
    # K (shape (M, K/128), strides (1, M)) and one per 128×128 block of the weight (shape
    # (N/128, K/128), rows padded to 4): taken from the tensors' shapes, or asked for by name.
    # K = 640: 5 K blocks, whose B rows pad to 8; N = 320: a partial last N block.
    m, n, k = 192, 320, 640
    kb, nb, ld = 5, 3, 8
    g = torch.Generator(device="cuda").manual_seed(11)
    a = torch.randn((m, k), device="cuda", generator=g).to(torch.float8_e4m3fn)
    w = torch.randn((n, k), device="cuda", generator=g).to(torch.float8_e4m3fn)
    scale_a = (torch.rand((kb, m), device="cuda", generator=g) + 0.5).t()  # strides (1, M)
    scale_b = (torch.rand((nb, ld), device="cuda", generator=g) + 0.5)[:, :kb]  # strides (8, 1)
    # The reference: each element of a and w times its block's scale, then an FP64 product.
    sa = scale_a.double().repeat_interleave(128, dim=1)[:, :k]
    sb = scale_b.double().repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
    want = (a.double() * sa) @ (w.double() * sb).t()
    got, info = runtimes[None].matmul(a, w, trans_b=True, scale_a=scale_a, scale_b=scale_b,
                                      info=True)
    torch.cuda.synchronize()
    assert got.dtype == torch.bfloat16 and info.status == "ok", info
    assert (got.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3
    out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    runtimes[None].matmul(a, w, out, trans_b=True, precision="e4m3-blk",
                          scale_a=scale_a.data_ptr(), scale_b=scale_b.data_ptr())
    torch.cuda.synchronize()
    assert (out.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3
    with pytest.raises(gemmtune.ArgumentError, match="block scales are shaped"):
        runtimes[None].matmul(a, w, trans_b=True, scale_a=scale_a.contiguous(), scale_b=scale_b)


@pytest.mark.skipif(HAS_GPU and torch is not None and torch.cuda.is_available() and
                    torch.cuda.get_device_capability() < (8, 9),
                    reason="FP8 needs sm_89 or later")
def test_fp8_with_an_e5m2_a(runtimes):
    # A gradient in e5m2 times an e4m3 weight (the pair FP8 training's backward GEMMs take):
    # e5m2 from the dtypes, its row-wise form from the scales' sizes; the pair the other way
    # round is refused with what to do instead.
    m, n, k = 128, 192, 512
    g = torch.Generator(device="cuda").manual_seed(13)
    a = (torch.randn((m, k), device="cuda", generator=g) * 1000).to(torch.float8_e5m2)
    w = torch.randn((n, k), device="cuda", generator=g).to(torch.float8_e4m3fn)
    scale_a = torch.tensor([0.5], device="cuda")
    scale_b = torch.tensor([0.25], device="cuda")
    want = 0.5 * 0.25 * (a.double() @ w.double().t())
    got, info = runtimes[None].matmul(a, w, trans_b=True, scale_a=scale_a, scale_b=scale_b,
                                      info=True)
    torch.cuda.synchronize()
    assert got.dtype == torch.bfloat16 and info.status == "ok", info
    assert (got.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3
    rows_a = torch.rand((m,), device="cuda", generator=g) + 0.5
    cols_b = torch.rand((n,), device="cuda", generator=g) + 0.5
    want = rows_a.double()[:, None] * cols_b.double()[None, :] * (a.double() @ w.double().t())
    got = runtimes[None].matmul(a, w, trans_b=True, scale_a=rows_a, scale_b=cols_b)
    torch.cuda.synchronize()
    assert (got.double() - want).abs().max().item() <= 1e-2 * want.abs().max().item() + 1e-3
    with pytest.raises(gemmtune.DtypeError, match="e5m2 operand as a"):
        runtimes[None].matmul(w, a, trans_b=True, scale_a=scale_b, scale_b=scale_a)


def test_the_default_table_comes_from_the_environment(monkeypatch):
    path = TABLES["fp16"]
    if not path.exists():
        pytest.skip(f"{path} is not in this checkout")
    monkeypatch.setenv(gemmtune.TABLE_ENV, os.fspath(path))
    gemmtune.set_default_runtime(None)
    try:
        a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
        _, info = gemmtune.matmul(a, a, info=True)
        assert info.rule in ("exact", "nearest", "gpu_default", "arch_default"), info
    finally:
        gemmtune.set_default_runtime(None)
