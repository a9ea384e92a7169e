"""The package on a GPU (skipped with the reason where none is usable): a CUDA array goes through
detect in place (the device memory the detector reads is the caller's) with the same R peaks as
the CPU and the command line; analyze and run take CUDA arrays too."""
import numpy as np
import pandas as pd
import pytest

import ecgpipe
from conftest import SAMPLE

pytestmark = pytest.mark.skipif(not ecgpipe.cuda_available(),
                                reason="no usable GPU, or this ecgpipe was built without CUDA")
FS = 250.0


@pytest.fixture(scope="module")
def signal():
    return ecgpipe.read(SAMPLE, fs=FS).signal


def test_torch_cuda_tensor_is_read_in_place(signal, cli, tmp_path):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(signal).cuda()
    peaks, info = ecgpipe.detect(x, FS, return_info=True)
    assert info["device"] == "cuda" and info["input_address"] == x.data_ptr()  # no copy anywhere
    np.testing.assert_array_equal(peaks, ecgpipe.detect(signal, FS, device="cpu"))
    cli("detect", SAMPLE, "--fs", FS, "--device", "cuda", "--out", tmp_path / "b.csv")
    np.testing.assert_array_equal(peaks, pd.read_csv(tmp_path / "b.csv")["r_peak"].to_numpy())


def test_cupy_array_is_read_in_place(signal):
    cupy = pytest.importorskip("cupy")
    x = cupy.asarray(signal)
    peaks, info = ecgpipe.detect(x, FS, return_info=True)
    assert info["input_address"] == x.data.ptr
    np.testing.assert_array_equal(peaks, ecgpipe.detect(signal, FS, device="cpu"))


def test_a_slice_of_a_cuda_tensor_is_read_where_it_starts(signal):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(np.concatenate([np.zeros(1000, np.float32), signal])).cuda()[1000:]
    peaks, info = ecgpipe.detect(x, FS, return_info=True)
    assert info["input_address"] == x.data_ptr()
    np.testing.assert_array_equal(peaks, ecgpipe.detect(signal, FS, device="cpu"))


def test_cuda_arrays_that_cannot_be_read_in_place_are_refused(signal):
    torch = pytest.importorskip("torch")
    with pytest.raises(ecgpipe.UsageError, match="float32"):
        ecgpipe.detect(torch.from_numpy(signal).double().cuda(), FS)
    with pytest.raises(ecgpipe.UsageError, match="1-D"):
        ecgpipe.detect(torch.zeros(4, 5, device="cuda"), FS)
    bad = torch.from_numpy(signal).cuda()
    bad[7] = float("nan")
    with pytest.raises(ecgpipe.InputError, match="finite"):
        ecgpipe.detect(bad, FS)
    with pytest.raises(ecgpipe.UsageError, match="device='cpu'"):
        ecgpipe.detect(torch.from_numpy(signal).cuda(), FS, device="cpu")


def test_analyze_and_run_take_cuda_arrays(signal):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(signal).cuda()
    assert ecgpipe.analyze(x, FS, device="cuda").beats_csv == ecgpipe.analyze(signal, FS, device="cuda").beats_csv
    a = ecgpipe.run(x, FS, epochs=2, device="cuda")
    b = ecgpipe.run(signal, FS, epochs=2, device="cuda")
    assert a.report["device"] == "cuda" and a.beats_csv == b.beats_csv
