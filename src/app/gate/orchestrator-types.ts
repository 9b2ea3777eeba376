/** What one step of the action ended with; main.ts turns `failed` into the step's failure. */
export interface ActionResult {
  /** The comparison's verdict, or baseline-recorded | baseline-missing | partial | error. */
  verdict: string;
  failed: boolean;
  /** Why the step fails, or null. */
  failureMessage: string | null;
  reportPath: string | null;
  resultsDir: string;
  commentUrl: string | null;
  baselineSha: string | null;
}
