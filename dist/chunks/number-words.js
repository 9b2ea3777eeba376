/**
 * English words for a whole number from 0 to 999,999 ("forty-two", "one hundred and five" is written
 * without "and": "one hundred five"). One definition, read by the built-in task set (its references,
 * workload/tasks.ts) and by the simulator (its answers, sim/tasks.ts).
 */
const ones = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
function belowThousand(n) {
    const parts = [];
    const hundreds = Math.floor(n / 100);
    const rest = n % 100;
    if (hundreds > 0)
        parts.push(`${ones[hundreds]} hundred`);
    if (rest > 0 || hundreds === 0) {
        if (rest < 20)
            parts.push(ones[rest]);
        else
            parts.push(rest % 10 === 0 ? tens[Math.floor(rest / 10)] : `${tens[Math.floor(rest / 10)]}-${ones[rest % 10]}`);
    }
    return parts.join(" ");
}
function numberWords(n) {
    if (!Number.isSafeInteger(n) || n < 0 || n > 999_999)
        throw new RangeError(`numberWords: ${n} is not a whole number from 0 to 999,999`);
    const thousands = Math.floor(n / 1000);
    const rest = n % 1000;
    if (thousands === 0)
        return belowThousand(rest);
    return rest === 0
        ? `${belowThousand(thousands)} thousand`
        : `${belowThousand(thousands)} thousand ${belowThousand(rest)}`;
}

export { numberWords as n };
