// The LightVAE's training step for one beat, forward and backward written out by hand (llm.c
// style), shared by the fused CUDA kernel (kernels/model/light_vae.cu: a block per beat, threads over
// positions) and its CPU reference (src/model/light_vae_fused.cpp: one "thread"). No LibTorch here: the
// model code (src/model/light_vae.cpp) defines the network and tests/model/test_light_vae_fused.cpp checks
// these gradients against LibTorch's autograd.
//
// Why by hand: a LibTorch training step is ~300 kernels of a few microseconds each (tiny
// convolutions of 1-16 channels, swish, the [1,2,1] filters, their backward passes, the loss), so
// even replayed from a CUDA graph a step costs ~1.8 ms for ~0.3 GFLOP. Here the whole forward and
// backward pass of a beat runs in one block out of shared memory; a step is this kernel, a
// deterministic sum of the per-beat gradients, and Adam.
//
// The network (src/model/light_vae.cpp; n = dims, a multiple of 8; every conv has kernel 3, padding 1):
//   x[1][n] -conv0-> a0[4][n] -swish,down-> d0[4][n/2] -conv1-> a1[8][n/2] -swish,down-> d1[8][n/4]
//   -conv2-> a2[16][n/4] -swish,down-> d2[16][n/8] -convA,convB, mean over time-> mu[2], logvar[2]
//   z = mu + eps * exp(logvar / 2);  r = restore(z) [n] viewed as [8][n/8]
//   -up-> u3[8][n/4] -conv3-> a3[4][n/4] -swish,up-> u4[4][n/2] -conv4-> a4[2][n/2] -swish,up->
//   u5[2][n] -conv5-> recon[n]
//   loss = mean_t (recon - x)^2 - 0.1 * mean_k (1 + logvar - mu^2 - exp(logvar))
// swish(a) = a * sigmoid(alpha * a) with one alpha shared by all five uses; down: [1,2,1] filter,
// stride 2, padding 1 (not normalised); up: each sample twice.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define ECGPIPE_HD __host__ __device__
#else
#define ECGPIPE_HD
#endif

namespace ecgpipe::light_vae {

constexpr int kLatent = 2;
constexpr float kKlWeight = 0.1f;
// The longest row the fused step takes: a block's shared memory holds workspace_floats(dims)
// floats, 36.5 per sample (75 KB at 512: within the 99 KB a block may have on sm_86/89 and the
// 227 KB of sm_80/90/100; a T4, sm_75, has 64 KB, so light_vae_fused_supported asks the device).
// Longer rows train with LibTorch's kernels.
constexpr int kMaxFusedDims = 512;

// Offsets of every parameter in one flat buffer, in LibTorch's parameters() order for the model
// (src/model/light_vae.cpp registers sigma, conv0, conv1, conv2, convA, convB, restore, conv3, conv4,
// conv5; a conv's weight [out][in][3] before its bias; Linear's weight [n][2] before its bias).
// src/model/graph_adam.cpp keeps the parameters in that order in one buffer; the model code checks the
// offsets against it before using the fused step.
struct Layout {
  int dims = 0;
  int alpha = 0, w0 = 0, b0 = 0, w1 = 0, b1 = 0, w2 = 0, b2 = 0, wA = 0, bA = 0, wB = 0, bB = 0;
  int wR = 0, bR = 0, w3 = 0, b3 = 0, w4 = 0, b4 = 0, w5 = 0, b5 = 0;
  int total = 0;  // parameters in all
};

ECGPIPE_HD inline Layout make_layout(int dims) {
  Layout l;
  l.dims = dims;
  int at = 0;
  const auto take = [&at](int count) {
    const int here = at;
    at += count;
    return here;
  };
  l.alpha = take(1);
  l.w0 = take(4 * 1 * 3), l.b0 = take(4);
  l.w1 = take(8 * 4 * 3), l.b1 = take(8);
  l.w2 = take(16 * 8 * 3), l.b2 = take(16);
  l.wA = take(kLatent * 16 * 3), l.bA = take(kLatent);
  l.wB = take(kLatent * 16 * 3), l.bB = take(kLatent);
  l.wR = take(dims * kLatent), l.bR = take(dims);
  l.w3 = take(4 * 8 * 3), l.b3 = take(4);
  l.w4 = take(2 * 4 * 3), l.b4 = take(2);
  l.w5 = take(1 * 2 * 3), l.b5 = take(1);
  l.total = at;
  return l;
}

// Working memory of one beat, carved from one float array (a block's shared memory): the forward
// activations the backward pass reads, and two gradient buffers used in turn.
struct Workspace {
  float *x, *a0, *d0, *a1, *d1, *a2, *d2, *y, *u3, *a3, *u4, *a4, *u5, *rec, *g1, *g2;
  float *mu, *logvar, *z, *dz;  // kLatent each: the latent values every thread reads
};
// Points `w` into `base` (when not null) and returns the floats the workspace takes: 36.5 per
// sample of the row plus 4 * kLatent (workspace_floats).
ECGPIPE_HD inline int carve(float* base, int n, Workspace& w) {
  int at = 0;
  const auto take = [base, &at](float*& field, int count) {
    field = base != nullptr ? base + at : nullptr;
    at += count;
  };
  take(w.x, n);
  take(w.a0, 4 * n), take(w.d0, 4 * (n / 2));
  take(w.a1, 8 * (n / 2)), take(w.d1, 8 * (n / 4));
  take(w.a2, 16 * (n / 4)), take(w.d2, 16 * (n / 8));
  take(w.y, 2 * kLatent * (n / 8));  // convA's then convB's outputs
  take(w.u3, 8 * (n / 4)), take(w.a3, 4 * (n / 4)), take(w.u4, 4 * (n / 2));
  take(w.a4, 2 * (n / 2)), take(w.u5, 2 * n), take(w.rec, n);
  take(w.g1, 4 * n), take(w.g2, 4 * n);  // the largest gradient is 4n: [4][n], [8][n/2], [16][n/4]
  take(w.mu, kLatent), take(w.logvar, kLatent), take(w.z, kLatent), take(w.dz, kLatent);
  return at;
}

ECGPIPE_HD inline int workspace_floats(int n) {
  Workspace unused{};
  return carve(nullptr, n, unused);
}

// A team of threads working on one beat: `rank` of `size`, sync() a barrier, sum() a sum over the
// team of one value per member (the same result on every member). SerialTeam is the CPU
// reference's team of one; the kernel's BlockTeam is in kernels/model/light_vae.cu.
struct SerialTeam {
  int rank = 0, size = 1;
  ECGPIPE_HD void sync() const {}
  ECGPIPE_HD float sum(float v) const { return v; }
};

ECGPIPE_HD inline float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }
ECGPIPE_HD inline float swish(float a, float alpha) { return a * sigmoid(alpha * a); }

// out[o][t] = b[o] + sum_i sum_k w[o][i][k] * in[i][t + k - 1] (zero outside 0..n-1).
template <class Team>
ECGPIPE_HD void conv_forward(const Team& tm, const float* in, int cin, int n, const float* w, const float* b, int cout,
                             float* out) {
  for (int j = tm.rank; j < cout * n; j += tm.size) {
    const int o = j / n, t = j % n;
    float acc = b[o];
    for (int i = 0; i < cin; ++i) {
      const float* wi = w + (o * cin + i) * 3;
      const float* xi = in + i * n;
      if (t > 0) acc += wi[0] * xi[t - 1];
      acc += wi[1] * xi[t];
      if (t + 1 < n) acc += wi[2] * xi[t + 1];
    }
    out[j] = acc;
  }
}

// Weight and bias gradients of that conv: gw[o][i][k] = sum_t g[o][t] * in[i][t + k - 1],
// gb[o] = sum_t g[o][t]. One member per weight, each written once.
template <class Team>
ECGPIPE_HD void conv_weight_grad(const Team& tm, const float* g, int cout, const float* in, int cin, int n, float* gw,
                                 float* gb) {
  const int weights = cout * cin * 3;
  for (int j = tm.rank; j < weights + cout; j += tm.size) {
    float acc = 0.0f;
    if (j < weights) {
      const int o = j / (cin * 3), i = (j / 3) % cin, k = j % 3;
      const float* go = g + o * n;
      const float* xi = in + i * n;
      const int from = k == 0 ? 1 : 0, to = k == 2 ? n - 1 : n;  // t + k - 1 inside 0..n-1
      for (int t = from; t < to; ++t) acc += go[t] * xi[t + k - 1];
      gw[j] = acc;
    } else {
      const float* go = g + (j - weights) * n;
      for (int t = 0; t < n; ++t) acc += go[t];
      gb[j - weights] = acc;
    }
  }
}

// Input gradient of that conv: gin[i][t] (+)= sum_o (w[o][i][0] g[o][t+1] + w[o][i][1] g[o][t] +
// w[o][i][2] g[o][t-1]). `accumulate` adds to gin (convA and convB share their input).
template <class Team>
ECGPIPE_HD void conv_input_grad(const Team& tm, const float* g, int cout, const float* w, int cin, int n, float* gin,
                                bool accumulate) {
  for (int j = tm.rank; j < cin * n; j += tm.size) {
    const int i = j / n, t = j % n;
    float acc = 0.0f;
    for (int o = 0; o < cout; ++o) {
      const float* wi = w + (o * cin + i) * 3;
      const float* go = g + o * n;
      if (t + 1 < n) acc += wi[0] * go[t + 1];
      acc += wi[1] * go[t];
      if (t > 0) acc += wi[2] * go[t - 1];
    }
    gin[j] = accumulate ? gin[j] + acc : acc;
  }
}

// out[c][i] = s[c][2i-1] + 2 s[c][2i] + s[c][2i+1], s = swish(a): channels of n_in samples
// (n_in even) to n_in / 2.
template <class Team>
ECGPIPE_HD void swish_down(const Team& tm, const float* a, int channels, int n_in, float alpha, float* out) {
  const int n_out = n_in / 2;
  for (int j = tm.rank; j < channels * n_out; j += tm.size) {
    const int c = j / n_out, i = j % n_out;
    const float* ac = a + c * n_in;
    float v = 2.0f * swish(ac[2 * i], alpha) + swish(ac[2 * i + 1], alpha);
    if (i > 0) v += swish(ac[2 * i - 1], alpha);
    out[j] = v;
  }
}

// out[c][t] = s[c][t / 2]: channels of n_in samples to 2 n_in; s = swish(a), or a itself.
template <class Team>
ECGPIPE_HD void up(const Team& tm, const float* a, int channels, int n_in, bool with_swish, float alpha, float* out) {
  for (int j = tm.rank; j < channels * 2 * n_in; j += tm.size) {
    const int c = j / (2 * n_in), t = j % (2 * n_in);
    const float v = a[c * n_in + t / 2];
    out[j] = with_swish ? swish(v, alpha) : v;
  }
}

// From the gradient of s = swish(a) to that of a; adds s's share of alpha's gradient to `dalpha`.
ECGPIPE_HD inline float swish_back(float gs, float a, float alpha, float& dalpha) {
  const float sg = sigmoid(alpha * a);
  const float slope = sg * (1.0f - sg);
  dalpha += gs * a * a * slope;
  return gs * (sg + alpha * a * slope);
}

// Backward of swish_down: gd[c][n_in/2] -> ga[c][n_in].
template <class Team>
ECGPIPE_HD void swish_down_back(const Team& tm, const float* gd, int channels, int n_in, const float* a, float alpha,
                                float* ga, float& dalpha) {
  const int n_out = n_in / 2;
  for (int j = tm.rank; j < channels * n_in; j += tm.size) {
    const int c = j / n_in, t = j % n_in;
    const float* gc = gd + c * n_out;
    // Sample 2i feeds out[i] with weight 2; sample 2i+1 feeds out[i] and out[i+1] with weight 1.
    const float gs = t % 2 == 0 ? 2.0f * gc[t / 2] : gc[t / 2] + (t / 2 + 1 < n_out ? gc[t / 2 + 1] : 0.0f);
    ga[j] = swish_back(gs, a[j], alpha, dalpha);
  }
}

// Backward of up: gu[c][2 n_in] -> ga[c][n_in] (through swish when with_swish).
template <class Team>
ECGPIPE_HD void up_back(const Team& tm, const float* gu, int channels, int n_in, const float* a, bool with_swish, float alpha,
                        float* ga, float& dalpha) {
  for (int j = tm.rank; j < channels * n_in; j += tm.size) {
    const int c = j / n_in, t = j % n_in;
    const float gs = gu[c * 2 * n_in + 2 * t] + gu[c * 2 * n_in + 2 * t + 1];
    ga[j] = with_swish ? swish_back(gs, a[j], alpha, dalpha) : gs;
  }
}

// Encoder: the row `x` into the workspace, then w.mu and w.logvar.
template <class Team>
ECGPIPE_HD void beat_encode(const Team& tm, const float* p, const Layout& lay, const float* x, Workspace w) {
  const int n = lay.dims, q = n / 2, h = n / 4, e = n / 8;
  const float alpha = p[lay.alpha];
  for (int t = tm.rank; t < n; t += tm.size) w.x[t] = x[t];
  tm.sync();
  conv_forward(tm, w.x, 1, n, p + lay.w0, p + lay.b0, 4, w.a0);
  tm.sync();
  swish_down(tm, w.a0, 4, n, alpha, w.d0);
  tm.sync();
  conv_forward(tm, w.d0, 4, q, p + lay.w1, p + lay.b1, 8, w.a1);
  tm.sync();
  swish_down(tm, w.a1, 8, q, alpha, w.d1);
  tm.sync();
  conv_forward(tm, w.d1, 8, h, p + lay.w2, p + lay.b2, 16, w.a2);
  tm.sync();
  swish_down(tm, w.a2, 16, h, alpha, w.d2);
  tm.sync();
  conv_forward(tm, w.d2, 16, e, p + lay.wA, p + lay.bA, kLatent, w.y);
  conv_forward(tm, w.d2, 16, e, p + lay.wB, p + lay.bB, kLatent, w.y + kLatent * e);
  tm.sync();
  // mu (rows c < kLatent of y) and logvar (the rest): means over time, summed in order by one
  // member each.
  for (int c = tm.rank; c < 2 * kLatent; c += tm.size) {
    float s = 0.0f;
    for (int t = 0; t < e; ++t) s += w.y[c * e + t];
    (c < kLatent ? w.mu[c] : w.logvar[c - kLatent]) = s / static_cast<float>(e);
  }
  tm.sync();
}

// w.z: mu + eps exp(logvar / 2), or mu itself when eps is null (scoring).
template <class Team>
ECGPIPE_HD void beat_sample(const Team& tm, const float* eps, Workspace w) {
  if (tm.rank == 0) {
    for (int c = 0; c < kLatent; ++c) w.z[c] = w.mu[c] + (eps != nullptr ? eps[c] * expf(0.5f * w.logvar[c]) : 0.0f);
  }
  tm.sync();
}

// Decoder: w.z to the reconstruction w.rec (n floats).
template <class Team>
ECGPIPE_HD void beat_decode(const Team& tm, const float* p, const Layout& lay, Workspace w) {
  const int n = lay.dims, q = n / 2, h = n / 4, e = n / 8;
  const float alpha = p[lay.alpha];
  const float* z = w.z;
  // restore(z) viewed as [8][e], upsampled to [8][h]: u3[c][t] = r[c * e + t / 2].
  for (int j = tm.rank; j < 8 * h; j += tm.size) {
    const int r = (j / h) * e + (j % h) / 2;
    w.u3[j] = p[lay.bR + r] + p[lay.wR + r * kLatent] * z[0] + p[lay.wR + r * kLatent + 1] * z[1];
  }
  tm.sync();
  conv_forward(tm, w.u3, 8, h, p + lay.w3, p + lay.b3, 4, w.a3);
  tm.sync();
  up(tm, w.a3, 4, h, true, alpha, w.u4);
  tm.sync();
  conv_forward(tm, w.u4, 4, q, p + lay.w4, p + lay.b4, 2, w.a4);
  tm.sync();
  up(tm, w.a4, 2, q, true, alpha, w.u5);
  tm.sync();
  conv_forward(tm, w.u5, 2, n, p + lay.w5, p + lay.b5, 1, w.rec);
  tm.sync();
}

// The loss's KL term of the beat in the workspace: -0.1 mean_c (1 + logvar - mu^2 - exp(logvar)).
ECGPIPE_HD inline float beat_kld(const Workspace& w) {
  float kld = 0.0f;
  for (int c = 0; c < kLatent; ++c) kld += 1.0f + w.logvar[c] - w.mu[c] * w.mu[c] - expf(w.logvar[c]);
  return kld * (-kKlWeight / kLatent);
}

// Scoring one beat (the model's eval pass): encode, decode from z (= mu when eps is null), and
// out[0] = mean_t (rec - x)^2, out[1] = the KL term, out[2..3] = mu (member 0 writes).
template <class Team>
ECGPIPE_HD void beat_score(const Team& tm, const float* p, const Layout& lay, const float* x, const float* eps, Workspace w,
                           float* out) {
  beat_encode(tm, p, lay, x, w);
  beat_sample(tm, eps, w);
  beat_decode(tm, p, lay, w);
  float sq = 0.0f;
  for (int t = tm.rank; t < lay.dims; t += tm.size) {
    const float d = w.rec[t] - w.x[t];
    sq += d * d;
  }
  const float mse = tm.sum(sq) / static_cast<float>(lay.dims);
  if (tm.rank == 0) {
    out[0] = mse;
    out[1] = beat_kld(w);
    out[2] = w.mu[0];
    out[3] = w.mu[1];
  }
}

// One beat: forward, loss, backward. `x` is the row (n = lay.dims floats), `eps` its two standard
// normal draws. Writes every parameter's gradient of this beat's loss to grad[0..lay.total) and
// the loss to *loss (member 0 only). Every member of the team calls it.
template <class Team>
ECGPIPE_HD void beat_step(const Team& tm, const float* p, const Layout& lay, const float* x, const float* eps, Workspace w,
                          float* grad, float* loss) {
  const int n = lay.dims, q = n / 2, h = n / 4, e = n / 8;
  const float alpha = p[lay.alpha];
  const float* mu = w.mu;
  const float* lv = w.logvar;
  const float* z = w.z;
  float* dz = w.dz;
  // ---- forward
  beat_encode(tm, p, lay, x, w);
  beat_sample(tm, eps, w);
  beat_decode(tm, p, lay, w);
  // ---- loss and its gradient at the output: d/drec mean_t (rec - x)^2 = 2 (rec - x) / n
  float sq = 0.0f;
  for (int t = tm.rank; t < n; t += tm.size) {
    const float d = w.rec[t] - w.x[t];
    sq += d * d;
    w.g1[t] = 2.0f * d / static_cast<float>(n);
  }
  const float mse = tm.sum(sq) / static_cast<float>(n);
  tm.sync();

  // ---- backward, decoder: g1 and g2 in turn hold the gradient of the current layer's output.
  float dalpha = 0.0f;
  conv_weight_grad(tm, w.g1, 1, w.u5, 2, n, grad + lay.w5, grad + lay.b5);
  conv_input_grad(tm, w.g1, 1, p + lay.w5, 2, n, w.g2, false);  // d u5 [2][n]
  tm.sync();
  up_back(tm, w.g2, 2, q, w.a4, true, alpha, w.g1, dalpha);  // d a4 [2][q]
  tm.sync();
  conv_weight_grad(tm, w.g1, 2, w.u4, 4, q, grad + lay.w4, grad + lay.b4);
  conv_input_grad(tm, w.g1, 2, p + lay.w4, 4, q, w.g2, false);  // d u4 [4][q]
  tm.sync();
  up_back(tm, w.g2, 4, h, w.a3, true, alpha, w.g1, dalpha);  // d a3 [4][h]
  tm.sync();
  conv_weight_grad(tm, w.g1, 4, w.u3, 8, h, grad + lay.w3, grad + lay.b3);
  conv_input_grad(tm, w.g1, 4, p + lay.w3, 8, h, w.g2, false);  // d u3 [8][h]
  tm.sync();
  up_back(tm, w.g2, 8, e, nullptr, false, alpha, w.g1, dalpha);  // d r [8][e] = [n]
  tm.sync();
  // restore: r[j] = bR[j] + wR[j][0] z0 + wR[j][1] z1.
  float gz0 = 0.0f, gz1 = 0.0f;
  for (int j = tm.rank; j < n; j += tm.size) {
    const float g = w.g1[j];
    grad[lay.wR + j * kLatent] = g * z[0];
    grad[lay.wR + j * kLatent + 1] = g * z[1];
    grad[lay.bR + j] = g;
    gz0 += p[lay.wR + j * kLatent] * g;
    gz1 += p[lay.wR + j * kLatent + 1] * g;
  }
  gz0 = tm.sum(gz0);
  gz1 = tm.sum(gz1);
  // ---- latent: z = mu + eps exp(lv/2); kld = -0.1 mean_c (1 + lv - mu^2 - exp(lv)).
  if (tm.rank == 0) {
    dz[0] = gz0;
    dz[1] = gz1;
  }
  tm.sync();
  const float kld = beat_kld(w);
  // d mean_t y_c / d y_c[t] = 1/e: the gradient at convA's and convB's outputs is constant in t.
  for (int j = tm.rank; j < 2 * kLatent * e; j += tm.size) {
    const int c = j / e;
    float g;
    if (c < kLatent) {
      g = dz[c] + kKlWeight * 2.0f * mu[c] / kLatent;
    } else {
      const int k = c - kLatent;
      g = dz[k] * eps[k] * 0.5f * expf(0.5f * lv[k]) - kKlWeight * (1.0f - expf(lv[k])) / kLatent;
    }
    w.g2[j] = g / static_cast<float>(e);
  }
  tm.sync();
  // ---- backward, encoder.
  conv_weight_grad(tm, w.g2, kLatent, w.d2, 16, e, grad + lay.wA, grad + lay.bA);
  conv_weight_grad(tm, w.g2 + kLatent * e, kLatent, w.d2, 16, e, grad + lay.wB, grad + lay.bB);
  conv_input_grad(tm, w.g2, kLatent, p + lay.wA, 16, e, w.g1, false);
  conv_input_grad(tm, w.g2 + kLatent * e, kLatent, p + lay.wB, 16, e, w.g1, true);  // d d2 [16][e]
  tm.sync();
  swish_down_back(tm, w.g1, 16, h, w.a2, alpha, w.g2, dalpha);  // d a2 [16][h]
  tm.sync();
  conv_weight_grad(tm, w.g2, 16, w.d1, 8, h, grad + lay.w2, grad + lay.b2);
  conv_input_grad(tm, w.g2, 16, p + lay.w2, 8, h, w.g1, false);  // d d1 [8][h]
  tm.sync();
  swish_down_back(tm, w.g1, 8, q, w.a1, alpha, w.g2, dalpha);  // d a1 [8][q]
  tm.sync();
  conv_weight_grad(tm, w.g2, 8, w.d0, 4, q, grad + lay.w1, grad + lay.b1);
  conv_input_grad(tm, w.g2, 8, p + lay.w1, 4, q, w.g1, false);  // d d0 [4][q]
  tm.sync();
  swish_down_back(tm, w.g1, 4, n, w.a0, alpha, w.g2, dalpha);  // d a0 [4][n]
  tm.sync();
  conv_weight_grad(tm, w.g2, 4, w.x, 1, n, grad + lay.w0, grad + lay.b0);
  dalpha = tm.sum(dalpha);
  if (tm.rank == 0) {
    grad[lay.alpha] = dalpha;
    *loss = mse + kld;
  }
}

}  // namespace ecgpipe::light_vae
