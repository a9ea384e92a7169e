// CPU reference of the fused LightVAE training step (src/model/light_vae_fused.hpp): the
// per-beat forward and backward pass of kernels/model/light_vae_math.cuh run by a team of one.
#include "model/light_vae_fused.hpp"

#include <cstring>
#include <vector>

#include "kernels/model/light_vae_math.cuh"

namespace ecgpipe::detail {

namespace lv = light_vae;

namespace {
// One beat's working memory for the team of one.
struct CpuWorkspace {
  std::vector<float> floats;
  lv::Workspace w;
  explicit CpuWorkspace(int dims) : floats(static_cast<std::size_t>(lv::workspace_floats(dims))) {
    lv::carve(floats.data(), dims, w);
  }
};
}  // namespace

int light_vae_fused_parameters(int dims) { return lv::make_layout(dims).total; }

void light_vae_step_cpu(const float* params, int dims, const float* rows, const std::int64_t* idx, std::int64_t batch,
                        const float* eps, float* grad, float* loss_sum) {
  const lv::Layout lay = lv::make_layout(dims);
  CpuWorkspace ws(dims);
  lv::Workspace& w = ws.w;
  std::vector<float> beat_grad(static_cast<std::size_t>(lay.total));
  std::memset(grad, 0, sizeof(float) * static_cast<std::size_t>(lay.total));
  float loss = 0.0f, total_loss = 0.0f;
  const lv::SerialTeam team;
  for (std::int64_t b = 0; b < batch; ++b) {
    lv::beat_step(team, params, lay, rows + idx[b] * dims, eps + lv::kLatent * b, w, beat_grad.data(), &loss);
    for (int p = 0; p < lay.total; ++p) grad[p] += beat_grad[static_cast<std::size_t>(p)];
    total_loss += loss;
  }
  *loss_sum += total_loss;
}

void light_vae_score_cpu(const float* params, int dims, const float* rows, std::int64_t count, const float* eps, float* out) {
  const lv::Layout lay = lv::make_layout(dims);
  CpuWorkspace ws(dims);
  lv::Workspace& w = ws.w;
  const lv::SerialTeam team;
  for (std::int64_t r = 0; r < count; ++r) {
    lv::beat_score(team, params, lay, rows + r * dims, eps != nullptr ? eps + lv::kLatent * r : nullptr, w,
                   out + kFusedScoreValues * r);
  }
}

void light_vae_decode_cpu(const float* params, int dims, const float* z, std::int64_t count, float* out) {
  const lv::Layout lay = lv::make_layout(dims);
  CpuWorkspace ws(dims);
  lv::Workspace& w = ws.w;
  const lv::SerialTeam team;
  for (std::int64_t k = 0; k < count; ++k) {
    for (int c = 0; c < lv::kLatent; ++c) w.z[c] = z[lv::kLatent * k + c];
    lv::beat_decode(team, params, lay, w);
    std::memcpy(out + k * dims, w.rec, sizeof(float) * static_cast<std::size_t>(dims));
  }
}

}  // namespace ecgpipe::detail
