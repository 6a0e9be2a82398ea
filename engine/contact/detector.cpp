// The model's collision detector.  Placeholder until collision shapes exist on the Model:
// no model has shapes, so there is no detector.
#include "appell/contact.hpp"

namespace appell {

std::unique_ptr<ContactDetector> make_contact_detector(const Model&) {
  return nullptr;
}

}  // namespace appell
