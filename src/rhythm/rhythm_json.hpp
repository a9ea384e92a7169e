// Internal: the AF burden as JSON (report.json holter.af and `ecgpipe rhythm --json`), apart from
// include/ecgpipe/rhythm/rhythm_episodes.hpp so that no public header exposes nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include "common/json_number.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"

namespace ecgpipe {

inline nlohmann::json rhythm_burden_json(const RhythmBurden& b) {
  return {{"analysed_s", b.analysed_s},
          {"afib_s", b.afib_s},
          {"afib_percent", b.afib_percent()},
          {"afib_episodes", b.afib_episodes},
          {"longest_afib_s", b.longest_afib_s},
          {"afib_mean_hr", json_number(b.afib_mean_hr)}};
}

}  // namespace ecgpipe
