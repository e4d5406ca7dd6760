// Node bundles of the main entry alone (see plain.js): prints the outcome as JSON.
import { plain } from "./plain.js";

plain().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
