// The sampling rates ecgpipe accepts, from any source (--fs, a WFDB or EDF header): one home for the
// bounds, below every reader and the detector that check them.
#pragma once

namespace ecgpipe {

inline constexpr double kMinFs = 50.0;      // below this a QRS is a handful of samples
inline constexpr double kMaxFs = 100000.0;  // sanity bound on --fs

}  // namespace ecgpipe
