// The AAMI class table: see include/ecgpipe/classify/aami_class.hpp.
#include "ecgpipe/classify/aami_class.hpp"

namespace ecgpipe {

char aami_class(char symbol) {
  switch (symbol) {
    case 'N': case 'L': case 'R': case 'e': case 'j':
      return 'N';
    case 'A': case 'a': case 'J': case 'S':
      return 'S';
    case 'V': case 'E':
      return 'V';
    case 'F':
      return 'F';
    case '/': case 'f': case 'Q':
      return 'Q';
    default:
      return 0;
  }
}

}  // namespace ecgpipe
