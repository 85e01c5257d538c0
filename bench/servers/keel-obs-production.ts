// One step of the observability cost on /hello (issue 34, goal 4); see observed-parts.ts.
import { serveObserved } from "./observed-parts.js";

void serveObserved({ metrics: false });
