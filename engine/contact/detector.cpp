// The model's collision detector: Bullet's (engine/contact/collision.hpp), when the model
// has shapes.
#include "appell/contact.hpp"
#include "engine/contact/collision.hpp"

namespace appell {

std::unique_ptr<ContactDetector> make_contact_detector(const Model& m) {
  if (m.shapes().empty()) return nullptr;
  return make_bullet_detector(m);
}

}  // namespace appell
