// The operator features' page modules, one import each; every module registers its parts
// with slots.js when it loads. Order here is the order their parts appear in a shared slot.
import "/static/telemetry.js";
import "/static/reach.js";
import "/static/focus.js";
import "/static/ask.js";
import "/static/endings.js";
import "/static/history.js";
import "/static/dismissals.js";
import "/static/intent.js";
import "/static/drift.js";
import "/static/goalsummary.js";
import "/static/capacity.js";
import "/static/spacedock.js";
import "/static/cockpit.js";
import "/static/evidence.js";
