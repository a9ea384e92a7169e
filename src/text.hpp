// Small string helpers shared by the input readers (private to the library).
#pragma once

#include <cctype>
#include <string>

namespace ecgpipe::text {

// Without leading and trailing blanks (spaces, tabs, CR, LF).
inline std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// ASCII lower case.
inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace ecgpipe::text
