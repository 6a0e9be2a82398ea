// The constraints a model can hold besides joints (appell/joint.hpp): geometric primitives,
// rolling, mimic, prescribed motion, constraints written as expressions, and constraints
// written as C++ callables.  Each derives from Constraint (appell/constraint.hpp), the
// extension point for constraints of your own.
#pragma once

#include "appell/callable_constraint.hpp"
#include "appell/expression_constraint.hpp"
#include "appell/mimic.hpp"
#include "appell/prescribed.hpp"
#include "appell/primitives.hpp"
#include "appell/rolling.hpp"
