// The operator features' page modules, one import each; every module registers its parts
// with slots.js when it loads. Order here is the order their parts appear in a shared slot.
import "/static/telemetry.js";
import "/static/reach.js";
import "/static/focus.js";
import "/static/ask.js";
import "/static/intent.js";
import "/static/drift.js";
