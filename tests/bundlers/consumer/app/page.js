"use client";
// A client page: compacts in the browser after `init()` (run() calls it).
import { useEffect, useState } from "react";
import { run } from "../demo.js";
import { report } from "../report.js";

export default function Page() {
  const [status, setStatus] = useState("running");
  useEffect(() => {
    const outcome = run();
    report(outcome);
    outcome.then(
      () => setStatus("done"),
      () => setStatus("failed"),
    );
  }, []);
  return <p id="status">{status}</p>;
}
