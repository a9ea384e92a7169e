// The AAMI EC57 beat classes of WFDB beat symbols: the table every class count, the classifier's
// training labels and the evaluation share.
#pragma once

namespace ecgpipe {

// AAMI EC57 class of a WFDB beat symbol: 'N' for N L R e j, 'S' for A a J S, 'V' for V E,
// 'F' for F, 'Q' for / f Q; 0 for anything else (non-beat annotations such as + ~ | " x [ ] !).
char aami_class(char symbol);
inline bool is_beat_symbol(char symbol) { return aami_class(symbol) != 0; }

}  // namespace ecgpipe
