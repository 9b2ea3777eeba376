import { I as InputError } from './version.js';
import { createHash } from 'node:crypto';
import { stat, readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { c as configLimits, a as isTraceDataset, o as traceLayoutOf } from './load.js';
import { c as createRng } from './random.js';

/** The cells named (`--cells`, the action's `cells` input), in the order named; all of them when none is. */
function selectCells(config, names) {
    if (!names || names.length === 0)
        return config.cells;
    const known = config.cells.map((cell) => cell.name);
    return names.map((name) => {
        const cell = config.cells.find((candidate) => candidate.name === name);
        if (!cell)
            throw new InputError(`--cells: no cell named "${name}"; the config has: ${known.join(", ")}`);
        return cell;
    });
}

/**
 * Short, common English words. With a leading space each is a single token in the BPE tokenizers of
 * common open models, so a prompt of N words is close to N tokens before calibration against the server.
 */
const vocabulary = ("time year people way day man thing woman life child world school state family student group country " +
    "problem hand part place case week company system program question work government number night point " +
    "home water room mother area money story fact month lot right study book eye job word business issue " +
    "side kind head house service friend father power hour game line end member law car city community name " +
    "team minute idea kid body back parent face others level office door health person art war history party " +
    "result change morning reason research girl guy moment air teacher force education foot boy age policy " +
    "music market sense nation plan college interest death experience effect use class control care field " +
    "development role effort rate heart drug show leader light voice wife police mind price report decision " +
    "son view relationship town road arm difference value building action model season society tax director " +
    "position player record paper space ground form event official matter center couple site project activity " +
    "star table need court oil situation cost industry figure street image phone data picture practice piece " +
    "land product doctor wall patient worker news test movie north love support technology step baby computer " +
    "type attention film tree source organization hair window evidence population site truth fish river blue " +
    "green small large early young important few public bad same able old great little own other long high")
    .split(" ")
    .filter((word, index, all) => word.length > 0 && all.indexOf(word) === index);

/** `count` seeded words joined by single spaces. */
function randomWords(rng, count) {
    const words = new Array(count);
    for (let index = 0; index < count; index++)
        words[index] = vocabulary[rng.int(0, vocabulary.length - 1)];
    return words.join(" ");
}
/** A seeded permutation of 0..n-1 (Fisher-Yates). */
function shuffledIndexes(rng, n) {
    const order = Array.from({ length: n }, (_, index) => index);
    for (let index = n - 1; index > 0; index--) {
        const other = rng.int(0, index);
        const held = order[index];
        order[index] = order[other];
        order[other] = held;
    }
    return order;
}

const defaultTokenModel = { tokensPerWord: 1, offset: 0, source: "default" };
/** Words for a whole prompt of `tokens` tokens (special tokens included in the offset). */
function wordsForPrompt(model, tokens) {
    return Math.max(1, Math.round((tokens - model.offset) / model.tokensPerWord));
}
/** Words for a part of a prompt (a suffix or a question): no special tokens. */
function wordsForPart(model, tokens) {
    return Math.max(1, Math.round(tokens / model.tokensPerWord));
}

class CsvError extends Error {
  constructor(code, message, options, ...contexts) {
    if (Array.isArray(message)) message = message.join(" ").trim();
    super(message);
    if (Error.captureStackTrace !== undefined) {
      Error.captureStackTrace(this, CsvError);
    }
    this.code = code;
    for (const context of contexts) {
      for (const key in context) {
        const value = context[key];
        this[key] = Buffer.isBuffer(value)
          ? value.toString(options.encoding)
          : value == null
            ? value
            : JSON.parse(JSON.stringify(value));
      }
    }
  }
}

const is_object = function (obj) {
  return typeof obj === "object" && obj !== null && !Array.isArray(obj);
};

const normalize_columns_array = function (columns) {
  const normalizedColumns = [];
  for (let i = 0, l = columns.length; i < l; i++) {
    const column = columns[i];
    if (column === undefined || column === null || column === false) {
      normalizedColumns[i] = { disabled: true };
    } else if (typeof column === "string" || typeof column === "number") {
      normalizedColumns[i] = { name: `${column}` };
    } else if (is_object(column)) {
      if (typeof column.name !== "string") {
        throw new CsvError("CSV_OPTION_COLUMNS_MISSING_NAME", [
          "Option columns missing name:",
          `property "name" is required at position ${i}`,
          "when column is an object literal",
        ]);
      }
      normalizedColumns[i] = column;
    } else {
      throw new CsvError("CSV_INVALID_COLUMN_DEFINITION", [
        "Invalid column definition:",
        "expect a string or a literal object,",
        `got ${JSON.stringify(column)} at position ${i}`,
      ]);
    }
  }
  return normalizedColumns;
};

class ResizeableBuffer {
  constructor(size = 100) {
    this.size = size;
    this.length = 0;
    this.buf = Buffer.allocUnsafe(size);
  }
  prepend(val) {
    if (Buffer.isBuffer(val)) {
      const length = this.length + val.length;
      if (length >= this.size) {
        this.resize();
        if (length >= this.size) {
          throw Error("INVALID_BUFFER_STATE");
        }
      }
      const buf = this.buf;
      this.buf = Buffer.allocUnsafe(this.size);
      val.copy(this.buf, 0);
      buf.copy(this.buf, val.length);
      this.length += val.length;
    } else {
      const length = this.length++;
      if (length === this.size) {
        this.resize();
      }
      const buf = this.clone();
      this.buf[0] = val;
      buf.copy(this.buf, 1, 0, length);
    }
  }
  append(val) {
    const length = this.length++;
    if (length === this.size) {
      this.resize();
    }
    this.buf[length] = val;
  }
  clone() {
    return Buffer.from(this.buf.slice(0, this.length));
  }
  resize() {
    const length = this.length;
    this.size = this.size * 2;
    const buf = Buffer.allocUnsafe(this.size);
    this.buf.copy(buf, 0, 0, length);
    this.buf = buf;
  }
  toString(encoding) {
    if (encoding) {
      return this.buf.toString(encoding, 0, this.length);
    } else {
      return Uint8Array.prototype.slice.call(this.buf.slice(0, this.length));
    }
  }
  toJSON() {
    return this.toString("utf8");
  }
  reset() {
    this.length = 0;
  }
}

const init_state = function (options) {
  // ECMAScript WhiteSpace + LineTerminator codepoints, encoded under
  // `options.encoding`. Aligns trimming with `String.prototype.trim()`.
  // https://tc39.es/ecma262/#sec-white-space
  // https://tc39.es/ecma262/#sec-line-terminators
  //
  // Codepoints unrepresentable in the target encoding are dropped: Node's
  // Buffer substitutes them with `?` (0x3F), and including those would cause
  // literal `?` bytes in the input to be trimmed under `latin1`/`ascii`.
  const timchars = [
    // Basic Latin
    0x0020, // [Space](https://www.fileformat.info/info/unicode/char/0020/index.htm)
    0x0009, // [CHARACTER TABULATION (HT)](https://www.fileformat.info/info/unicode/char/0009/index.htm)
    0x000a, // [LINE FEED (LF)](https://www.fileformat.info/info/unicode/char/000a/index.htm)
    0x000d, // [CARRIAGE RETURN (CR)](https://www.fileformat.info/info/unicode/char/000d/index.htm)
    0x000c, // [FORM FEED (FF)](https://www.fileformat.info/info/unicode/char/000c/index.htm)
    0x000b, // [LINE TABULATION (VT)](https://www.fileformat.info/info/unicode/char/000b/index.htm)
    // Latin-1 Supplement
    0x00a0, // [NO-BREAK SPACE (NBSP)](https://www.fileformat.info/info/unicode/char/00a0/index.htm)
    // Ogham
    0x1680, // [OGHAM SPACE MARK](https://www.fileformat.info/info/unicode/char/1680/index.htm)
    // General Punctuation
    0x2000, // [EN QUAD](https://www.fileformat.info/info/unicode/char/2000/index.htm)
    0x2001, // [EM QUAD](https://www.fileformat.info/info/unicode/char/2001/index.htm)
    0x2002, // [EN SPACE](https://www.fileformat.info/info/unicode/char/2002/index.htm)
    0x2003, // [EM SPACE](https://www.fileformat.info/info/unicode/char/2003/index.htm)
    0x2004, // [THREE-PER-EM SPACE](https://www.fileformat.info/info/unicode/char/2004/index.htm)
    0x2005, // [FOUR-PER-EM SPACE](https://www.fileformat.info/info/unicode/char/2005/index.htm)
    0x2006, // [SIX-PER-EM SPACE](https://www.fileformat.info/info/unicode/char/2006/index.htm)
    0x2007, // [FIGURE SPACE](https://www.fileformat.info/info/unicode/char/2007/index.htm)
    0x2008, // [PUNCTUATION SPACE](https://www.fileformat.info/info/unicode/char/2008/index.htm)
    0x2009, // [THIN SPACE](https://www.fileformat.info/info/unicode/char/2009/index.htm)
    0x200a, // [HAIR SPACE](https://www.fileformat.info/info/unicode/char/200a/index.htm)
    0x2028, // [LINE SEPARATOR](https://www.fileformat.info/info/unicode/char/2028/index.htm)
    0x2029, // [PARAGRAPH SEPARATOR](https://www.fileformat.info/info/unicode/char/2029/index.htm)
    0x202f, // [NARROW NO-BREAK SPACE (NNBSP)](https://www.fileformat.info/info/unicode/char/202f/index.htm)
    0x205f, // [MEDIUM MATHEMATICAL SPACE (MMSP)](https://www.fileformat.info/info/unicode/char/205f/index.htm)
    0x3000, // [IDEOGRAPHIC SPACE](https://www.fileformat.info/info/unicode/char/3000/index.htm)
    0xfeff, // [ZERO WIDTH NO-BREAK SPACE (BOM)](https://www.fileformat.info/info/unicode/char/feff/index.htm)
  ].reduce((acc, codepoint) => {
    const encoded = Buffer.from(
      String.fromCharCode(codepoint),
      options.encoding,
    );
    if (codepoint !== 0x3f && encoded.length === 1 && encoded[0] === 0x3f) {
      return acc;
    }
    acc.push(encoded);
    return acc;
  }, []);
  // First-byte lookup table for `__isCharTrimable`. Non-whitespace bytes
  // (the common case) bail out in O(1) without scanning every timchar.
  const timcharFirstBytes = new Uint8Array(256);
  for (const t of timchars) timcharFirstBytes[t[0]] = 1;
  return {
    bomSkipped: false,
    bufBytesStart: 0,
    castField: options.cast_function,
    commenting: false,
    delimiterBufPrevious: undefined,
    delimiterDiscovered: false,
    // Current error encountered by a record
    error: undefined,
    enabled: options.from_line === 1,
    escaping: false,
    escapeIsQuote:
      Buffer.isBuffer(options.escape) &&
      Buffer.isBuffer(options.quote) &&
      Buffer.compare(options.escape, options.quote) === 0,
    // columns can be `false`, `true`, `Array`
    expectedRecordLength: Array.isArray(options.columns)
      ? options.columns.length
      : undefined,
    field: new ResizeableBuffer(20),
    firstLineToHeaders: options.cast_first_line_to_header,
    needMoreDataSize: Math.max(
      // Skip if the remaining buffer smaller than comment
      options.comment !== null ? options.comment.length : 0,
      // Skip if the remaining buffer can be delimiter
      ...(options.delimiter
        ? options.delimiter.map((delimiter) => delimiter.length)
        : []),
      // Auto discovery of delimiter is limited to 1 character
      options.delimiter_auto ? 1 : 0,
      // Skip if the remaining buffer can be escape sequence
      options.quote !== null ? options.quote.length : 0,
      // Skip if the remaining buffer can be a multi-byte trim character
      ...timchars.map((t) => t.length),
    ),
    previousBuf: undefined,
    quoting: false,
    stop: false,
    rawBuffer: new ResizeableBuffer(100),
    record: [],
    recordHasError: false,
    record_length: 0,
    recordDelimiterMaxLength:
      options.record_delimiter.length === 0
        ? 0
        : Math.max(...options.record_delimiter.map((v) => v.length)),
    trimChars: [
      Buffer.from(" ", options.encoding)[0],
      Buffer.from("\t", options.encoding)[0],
    ],
    wasQuoting: false,
    wasRowDelimiter: false,
    timchars: timchars,
    timcharFirstBytes: timcharFirstBytes,
  };
};

const underscore = function (str) {
  return str.replace(/([A-Z])/g, function (_, match) {
    return "_" + match.toLowerCase();
  });
};

const normalize_options = function (opts) {
  const options = {};
  // Merge with user options
  for (const opt in opts) {
    options[underscore(opt)] = opts[opt];
  }
  // Normalize option `encoding`
  // Note: defined first because other options depends on it
  // to convert chars/strings into buffers.
  if (options.encoding === undefined || options.encoding === true) {
    options.encoding = "utf8";
  } else if (options.encoding === null || options.encoding === false) {
    options.encoding = null;
  } else if (
    typeof options.encoding !== "string" &&
    options.encoding !== null
  ) {
    throw new CsvError(
      "CSV_INVALID_OPTION_ENCODING",
      [
        "Invalid option encoding:",
        "encoding must be a string or null to return a buffer,",
        `got ${JSON.stringify(options.encoding)}`,
      ],
      options,
    );
  }
  // Normalize option `bom`
  if (
    options.bom === undefined ||
    options.bom === null ||
    options.bom === false
  ) {
    options.bom = false;
  } else if (options.bom !== true) {
    throw new CsvError(
      "CSV_INVALID_OPTION_BOM",
      [
        "Invalid option bom:",
        "bom must be true,",
        `got ${JSON.stringify(options.bom)}`,
      ],
      options,
    );
  }
  // Normalize option `cast`
  options.cast_function = null;
  if (
    options.cast === undefined ||
    options.cast === null ||
    options.cast === false ||
    options.cast === ""
  ) {
    options.cast = undefined;
  } else if (typeof options.cast === "function") {
    options.cast_function = options.cast;
    options.cast = true;
  } else if (options.cast !== true) {
    throw new CsvError(
      "CSV_INVALID_OPTION_CAST",
      [
        "Invalid option cast:",
        "cast must be true or a function,",
        `got ${JSON.stringify(options.cast)}`,
      ],
      options,
    );
  }
  // Normalize option `cast_date`
  if (
    options.cast_date === undefined ||
    options.cast_date === null ||
    options.cast_date === false ||
    options.cast_date === ""
  ) {
    options.cast_date = false;
  } else if (options.cast_date === true) {
    options.cast_date = function (value) {
      const date = Date.parse(value);
      return !isNaN(date) ? new Date(date) : value;
    };
  } else if (typeof options.cast_date !== "function") {
    throw new CsvError(
      "CSV_INVALID_OPTION_CAST_DATE",
      [
        "Invalid option cast_date:",
        "cast_date must be true or a function,",
        `got ${JSON.stringify(options.cast_date)}`,
      ],
      options,
    );
  }
  // Normalize option `columns`
  options.cast_first_line_to_header = undefined;
  if (options.columns === true) {
    // Fields in the first line are converted as-is to columns
    options.cast_first_line_to_header = undefined;
  } else if (typeof options.columns === "function") {
    options.cast_first_line_to_header = options.columns;
    options.columns = true;
  } else if (Array.isArray(options.columns)) {
    options.columns = normalize_columns_array(options.columns);
  } else if (
    options.columns === undefined ||
    options.columns === null ||
    options.columns === false
  ) {
    options.columns = false;
  } else {
    throw new CsvError(
      "CSV_INVALID_OPTION_COLUMNS",
      [
        "Invalid option columns:",
        "expect an array, a function or true,",
        `got ${JSON.stringify(options.columns)}`,
      ],
      options,
    );
  }
  // Normalize option `group_columns_by_name`
  if (
    options.group_columns_by_name === undefined ||
    options.group_columns_by_name === null ||
    options.group_columns_by_name === false
  ) {
    options.group_columns_by_name = false;
  } else if (options.group_columns_by_name !== true) {
    throw new CsvError(
      "CSV_INVALID_OPTION_GROUP_COLUMNS_BY_NAME",
      [
        "Invalid option group_columns_by_name:",
        "expect an boolean,",
        `got ${JSON.stringify(options.group_columns_by_name)}`,
      ],
      options,
    );
  } else if (options.columns === false) {
    throw new CsvError(
      "CSV_INVALID_OPTION_GROUP_COLUMNS_BY_NAME",
      [
        "Invalid option group_columns_by_name:",
        "the `columns` mode must be activated.",
      ],
      options,
    );
  }
  // Normalize option `comment`
  if (
    options.comment === undefined ||
    options.comment === null ||
    options.comment === false ||
    options.comment === ""
  ) {
    options.comment = null;
  } else {
    if (typeof options.comment === "string") {
      options.comment = Buffer.from(options.comment, options.encoding);
    }
    if (!Buffer.isBuffer(options.comment)) {
      throw new CsvError(
        "CSV_INVALID_OPTION_COMMENT",
        [
          "Invalid option comment:",
          "comment must be a buffer or a string,",
          `got ${JSON.stringify(options.comment)}`,
        ],
        options,
      );
    }
  }
  // Normalize option `comment_no_infix`
  if (
    options.comment_no_infix === undefined ||
    options.comment_no_infix === null ||
    options.comment_no_infix === false
  ) {
    options.comment_no_infix = false;
  } else if (options.comment_no_infix !== true) {
    throw new CsvError(
      "CSV_INVALID_OPTION_COMMENT",
      [
        "Invalid option comment_no_infix:",
        "value must be a boolean,",
        `got ${JSON.stringify(options.comment_no_infix)}`,
      ],
      options,
    );
  }
  // Normalize option `delimiter_auto`
  if (
    options.delimiter_auto === undefined ||
    options.delimiter_auto === null ||
    options.delimiter_auto === false
  ) {
    options.delimiter_auto = false;
  } else if (options.delimiter_auto === true) {
    options.delimiter_auto = {};
  } else if (!is_object(options.delimiter_auto)) {
    throw new CsvError(
      "CSV_INVALID_OPTION_DELIMITER_AUTO",
      [
        "Invalid option delimiter_auto:",
        "delimiter_auto must be a boolean or a configuration object,",
        `got ${JSON.stringify(options.delimiter_auto)}`,
      ],
      options,
    );
  }
  if (options.delimiter_auto) {
    if (options.delimiter_auto.preferred === undefined)
      options.delimiter_auto.preferred = {
        [",".charCodeAt(0)]: 1.8,
        ["\t".charCodeAt(0)]: 1.8,
        [";".charCodeAt(0)]: 1.6,
        [" ".charCodeAt(0)]: 1.6,
        [":".charCodeAt(0)]: 1.5,
        [".".charCodeAt(0)]: 1.4,
        ["/".charCodeAt(0)]: 1.4,
      };
    else if (!is_object(options.delimiter_auto.preferred)) {
      throw new CsvError(
        "CSV_INVALID_OPTION_DELIMITER_AUTO",
        [
          "Invalid option delimiter_auto:",
          "preferred must be an object,",
          `got ${JSON.stringify(options.delimiter_auto.preferred)}`,
        ],
        options,
      );
    }
    if (options.delimiter_auto.score === undefined)
      options.delimiter_auto.score = (info, options) => {
        return (
          (info.total - info.std) * (options.preferred[info.char_code] || 1)
        );
      };
    else if (typeof options.delimiter_auto.score !== "function") {
      throw new CsvError(
        "CSV_INVALID_OPTION_DELIMITER_AUTO",
        [
          "Invalid option delimiter_auto:",
          "score must be a function,",
          `got ${JSON.stringify(options.delimiter_auto.score)}`,
        ],
        options,
      );
    }
    if (options.delimiter_auto.size === undefined)
      options.delimiter_auto.size = 2048;
    else if (typeof options.delimiter_auto.size !== "number") {
      throw new CsvError(
        "CSV_INVALID_OPTION_DELIMITER_AUTO",
        [
          "Invalid option delimiter_auto:",
          "size must be a number,",
          `got ${JSON.stringify(options.delimiter_auto.size)}`,
        ],
        options,
      );
    }
  }
  // Normalize option `delimiter`
  const delimiter_json = JSON.stringify(options.delimiter);
  if (options.delimiter_auto !== false) {
    options.delimiter = [];
  }
  if (!Array.isArray(options.delimiter)) {
    if (
      options.delimiter === undefined ||
      options.delimiter === null ||
      options.delimiter === false
    ) {
      options.delimiter = Buffer.from(",", options.encoding);
    }
    options.delimiter = [options.delimiter];
  }
  options.delimiter = options.delimiter.map(function (delimiter) {
    if (typeof delimiter === "string") {
      delimiter = Buffer.from(delimiter, options.encoding);
    }
    if (!Buffer.isBuffer(delimiter) || delimiter.length === 0) {
      throw new CsvError(
        "CSV_INVALID_OPTION_DELIMITER",
        [
          "Invalid option delimiter:",
          "delimiter must be a non empty string or buffer or array of string|buffer,",
          `got ${delimiter_json}`,
        ],
        options,
      );
    }
    return delimiter;
  });
  // Normalize option `escape`
  if (options.escape === undefined || options.escape === true) {
    options.escape = Buffer.from('"', options.encoding);
  } else if (typeof options.escape === "string") {
    options.escape = Buffer.from(options.escape, options.encoding);
  } else if (options.escape === null || options.escape === false) {
    options.escape = null;
  }
  if (options.escape !== null) {
    if (!Buffer.isBuffer(options.escape)) {
      throw new Error(
        `Invalid Option: escape must be a buffer, a string or a boolean, got ${JSON.stringify(options.escape)}`,
      );
    }
  }
  // Normalize option `from`
  if (options.from === undefined || options.from === null) {
    options.from = 1;
  } else {
    if (typeof options.from === "string" && /\d+/.test(options.from)) {
      options.from = parseInt(options.from);
    }
    if (Number.isInteger(options.from)) {
      if (options.from < 0) {
        throw new Error(
          `Invalid Option: from must be a positive integer, got ${JSON.stringify(opts.from)}`,
        );
      }
    } else {
      throw new Error(
        `Invalid Option: from must be an integer, got ${JSON.stringify(options.from)}`,
      );
    }
  }
  // Normalize option `from_line`
  if (options.from_line === undefined || options.from_line === null) {
    options.from_line = 1;
  } else {
    if (
      typeof options.from_line === "string" &&
      /\d+/.test(options.from_line)
    ) {
      options.from_line = parseInt(options.from_line);
    }
    if (Number.isInteger(options.from_line)) {
      if (options.from_line <= 0) {
        throw new Error(
          `Invalid Option: from_line must be a positive integer greater than 0, got ${JSON.stringify(opts.from_line)}`,
        );
      }
    } else {
      throw new Error(
        `Invalid Option: from_line must be an integer, got ${JSON.stringify(opts.from_line)}`,
      );
    }
  }
  // Normalize options `ignore_last_delimiters`
  if (
    options.ignore_last_delimiters === undefined ||
    options.ignore_last_delimiters === null
  ) {
    options.ignore_last_delimiters = false;
  } else if (typeof options.ignore_last_delimiters === "number") {
    options.ignore_last_delimiters = Math.floor(options.ignore_last_delimiters);
    if (options.ignore_last_delimiters === 0) {
      options.ignore_last_delimiters = false;
    }
  } else if (typeof options.ignore_last_delimiters !== "boolean") {
    throw new CsvError(
      "CSV_INVALID_OPTION_IGNORE_LAST_DELIMITERS",
      [
        "Invalid option `ignore_last_delimiters`:",
        "the value must be a boolean value or an integer,",
        `got ${JSON.stringify(options.ignore_last_delimiters)}`,
      ],
      options,
    );
  }
  if (options.ignore_last_delimiters === true && options.columns === false) {
    throw new CsvError(
      "CSV_IGNORE_LAST_DELIMITERS_REQUIRES_COLUMNS",
      [
        "The option `ignore_last_delimiters`",
        "requires the activation of the `columns` option",
      ],
      options,
    );
  }
  // Normalize option `info`
  if (
    options.info === undefined ||
    options.info === null ||
    options.info === false
  ) {
    options.info = false;
  } else if (options.info !== true) {
    throw new Error(
      `Invalid Option: info must be true, got ${JSON.stringify(options.info)}`,
    );
  }
  // Normalize option `max_record_size`
  if (
    options.max_record_size === undefined ||
    options.max_record_size === null ||
    options.max_record_size === false
  ) {
    options.max_record_size = 0;
  } else if (
    Number.isInteger(options.max_record_size) &&
    options.max_record_size >= 0
  ) ; else if (
    typeof options.max_record_size === "string" &&
    /\d+/.test(options.max_record_size)
  ) {
    options.max_record_size = parseInt(options.max_record_size);
  } else {
    throw new Error(
      `Invalid Option: max_record_size must be a positive integer, got ${JSON.stringify(options.max_record_size)}`,
    );
  }
  // Normalize option `objname`
  if (
    options.objname === undefined ||
    options.objname === null ||
    options.objname === false
  ) {
    options.objname = undefined;
  } else if (Buffer.isBuffer(options.objname)) {
    if (options.objname.length === 0) {
      throw new Error(`Invalid Option: objname must be a non empty buffer`);
    }
    if (options.encoding === null) ; else {
      options.objname = options.objname.toString(options.encoding);
    }
  } else if (typeof options.objname === "string") {
    if (options.objname.length === 0) {
      throw new Error(`Invalid Option: objname must be a non empty string`);
    }
    // Great, nothing to do
  } else if (typeof options.objname === "number") ; else {
    throw new Error(
      `Invalid Option: objname must be a string or a buffer, got ${options.objname}`,
    );
  }
  if (options.objname !== undefined) {
    if (typeof options.objname === "number") {
      if (options.columns !== false) {
        throw Error(
          "Invalid Option: objname index cannot be combined with columns or be defined as a field",
        );
      }
    } else {
      // A string or a buffer
      if (options.columns === false) {
        throw Error(
          "Invalid Option: objname field must be combined with columns or be defined as an index",
        );
      }
    }
  }
  // Normalize option `on_record`
  if (options.on_record === undefined || options.on_record === null) {
    options.on_record = undefined;
  } else if (typeof options.on_record !== "function") {
    throw new CsvError(
      "CSV_INVALID_OPTION_ON_RECORD",
      [
        "Invalid option `on_record`:",
        "expect a function,",
        `got ${JSON.stringify(options.on_record)}`,
      ],
      options,
    );
  }
  // Normalize option `on_skip`
  // options.on_skip ??= (err, chunk) => {
  //   this.emit('skip', err, chunk);
  // };
  if (
    options.on_skip !== undefined &&
    options.on_skip !== null &&
    typeof options.on_skip !== "function"
  ) {
    throw new Error(
      `Invalid Option: on_skip must be a function, got ${JSON.stringify(options.on_skip)}`,
    );
  }
  // Normalize option `quote`
  if (
    options.quote === null ||
    options.quote === false ||
    options.quote === ""
  ) {
    options.quote = null;
  } else {
    if (options.quote === undefined || options.quote === true) {
      options.quote = Buffer.from('"', options.encoding);
    } else if (typeof options.quote === "string") {
      options.quote = Buffer.from(options.quote, options.encoding);
    }
    if (!Buffer.isBuffer(options.quote)) {
      throw new Error(
        `Invalid Option: quote must be a buffer or a string, got ${JSON.stringify(options.quote)}`,
      );
    }
  }
  // Normalize option `raw`
  if (
    options.raw === undefined ||
    options.raw === null ||
    options.raw === false
  ) {
    options.raw = false;
  } else if (options.raw !== true) {
    throw new Error(
      `Invalid Option: raw must be true, got ${JSON.stringify(options.raw)}`,
    );
  }
  // Normalize option `record_delimiter`
  if (options.record_delimiter === undefined) {
    options.record_delimiter = [];
  } else if (
    typeof options.record_delimiter === "string" ||
    Buffer.isBuffer(options.record_delimiter)
  ) {
    if (options.record_delimiter.length === 0) {
      throw new CsvError(
        "CSV_INVALID_OPTION_RECORD_DELIMITER",
        [
          "Invalid option `record_delimiter`:",
          "value must be a non empty string or buffer,",
          `got ${JSON.stringify(options.record_delimiter)}`,
        ],
        options,
      );
    }
    options.record_delimiter = [options.record_delimiter];
  } else if (!Array.isArray(options.record_delimiter)) {
    throw new CsvError(
      "CSV_INVALID_OPTION_RECORD_DELIMITER",
      [
        "Invalid option `record_delimiter`:",
        "value must be a string, a buffer or array of string|buffer,",
        `got ${JSON.stringify(options.record_delimiter)}`,
      ],
      options,
    );
  }
  options.record_delimiter = options.record_delimiter.map(function (rd, i) {
    if (typeof rd !== "string" && !Buffer.isBuffer(rd)) {
      throw new CsvError(
        "CSV_INVALID_OPTION_RECORD_DELIMITER",
        [
          "Invalid option `record_delimiter`:",
          "value must be a string, a buffer or array of string|buffer",
          `at index ${i},`,
          `got ${JSON.stringify(rd)}`,
        ],
        options,
      );
    } else if (rd.length === 0) {
      throw new CsvError(
        "CSV_INVALID_OPTION_RECORD_DELIMITER",
        [
          "Invalid option `record_delimiter`:",
          "value must be a non empty string or buffer",
          `at index ${i},`,
          `got ${JSON.stringify(rd)}`,
        ],
        options,
      );
    }
    if (typeof rd === "string") {
      rd = Buffer.from(rd, options.encoding);
    }
    return rd;
  });
  // Normalize option `relax_column_count`
  if (typeof options.relax_column_count === "boolean") ; else if (
    options.relax_column_count === undefined ||
    options.relax_column_count === null
  ) {
    options.relax_column_count = false;
  } else {
    throw new Error(
      `Invalid Option: relax_column_count must be a boolean, got ${JSON.stringify(options.relax_column_count)}`,
    );
  }
  if (typeof options.relax_column_count_less === "boolean") ; else if (
    options.relax_column_count_less === undefined ||
    options.relax_column_count_less === null
  ) {
    options.relax_column_count_less = false;
  } else {
    throw new Error(
      `Invalid Option: relax_column_count_less must be a boolean, got ${JSON.stringify(options.relax_column_count_less)}`,
    );
  }
  if (typeof options.relax_column_count_more === "boolean") ; else if (
    options.relax_column_count_more === undefined ||
    options.relax_column_count_more === null
  ) {
    options.relax_column_count_more = false;
  } else {
    throw new Error(
      `Invalid Option: relax_column_count_more must be a boolean, got ${JSON.stringify(options.relax_column_count_more)}`,
    );
  }
  // Normalize option `relax_quotes`
  if (typeof options.relax_quotes === "boolean") ; else if (
    options.relax_quotes === undefined ||
    options.relax_quotes === null
  ) {
    options.relax_quotes = false;
  } else {
    throw new Error(
      `Invalid Option: relax_quotes must be a boolean, got ${JSON.stringify(options.relax_quotes)}`,
    );
  }
  // Normalize option `skip_empty_lines`
  if (typeof options.skip_empty_lines === "boolean") ; else if (
    options.skip_empty_lines === undefined ||
    options.skip_empty_lines === null
  ) {
    options.skip_empty_lines = false;
  } else {
    throw new Error(
      `Invalid Option: skip_empty_lines must be a boolean, got ${JSON.stringify(options.skip_empty_lines)}`,
    );
  }
  // Normalize option `skip_records_with_empty_values`
  if (typeof options.skip_records_with_empty_values === "boolean") ; else if (
    options.skip_records_with_empty_values === undefined ||
    options.skip_records_with_empty_values === null
  ) {
    options.skip_records_with_empty_values = false;
  } else {
    throw new Error(
      `Invalid Option: skip_records_with_empty_values must be a boolean, got ${JSON.stringify(options.skip_records_with_empty_values)}`,
    );
  }
  // Normalize option `skip_records_with_error`
  if (typeof options.skip_records_with_error === "boolean") ; else if (
    options.skip_records_with_error === undefined ||
    options.skip_records_with_error === null
  ) {
    options.skip_records_with_error = false;
  } else {
    throw new Error(
      `Invalid Option: skip_records_with_error must be a boolean, got ${JSON.stringify(options.skip_records_with_error)}`,
    );
  }
  // Normalize option `rtrim`
  if (
    options.rtrim === undefined ||
    options.rtrim === null ||
    options.rtrim === false
  ) {
    options.rtrim = false;
  } else if (options.rtrim !== true) {
    throw new Error(
      `Invalid Option: rtrim must be a boolean, got ${JSON.stringify(options.rtrim)}`,
    );
  }
  // Normalize option `ltrim`
  if (
    options.ltrim === undefined ||
    options.ltrim === null ||
    options.ltrim === false
  ) {
    options.ltrim = false;
  } else if (options.ltrim !== true) {
    throw new Error(
      `Invalid Option: ltrim must be a boolean, got ${JSON.stringify(options.ltrim)}`,
    );
  }
  // Normalize option `trim`
  if (
    options.trim === undefined ||
    options.trim === null ||
    options.trim === false
  ) {
    options.trim = false;
  } else if (options.trim !== true) {
    throw new Error(
      `Invalid Option: trim must be a boolean, got ${JSON.stringify(options.trim)}`,
    );
  }
  // Normalize options `trim`, `ltrim` and `rtrim`
  if (options.trim === true && opts.ltrim !== false) {
    options.ltrim = true;
  } else if (options.ltrim !== true) {
    options.ltrim = false;
  }
  if (options.trim === true && opts.rtrim !== false) {
    options.rtrim = true;
  } else if (options.rtrim !== true) {
    options.rtrim = false;
  }
  // Normalize option `to`
  if (options.to === undefined || options.to === null) {
    options.to = -1;
  } else if (options.to !== -1) {
    if (typeof options.to === "string" && /\d+/.test(options.to)) {
      options.to = parseInt(options.to);
    }
    if (Number.isInteger(options.to)) {
      if (options.to <= 0) {
        throw new Error(
          `Invalid Option: to must be a positive integer greater than 0, got ${JSON.stringify(opts.to)}`,
        );
      }
    } else {
      throw new Error(
        `Invalid Option: to must be an integer, got ${JSON.stringify(opts.to)}`,
      );
    }
  }
  // Normalize option `to_line`
  if (options.to_line === undefined || options.to_line === null) {
    options.to_line = -1;
  } else if (options.to_line !== -1) {
    if (typeof options.to_line === "string" && /\d+/.test(options.to_line)) {
      options.to_line = parseInt(options.to_line);
    }
    if (Number.isInteger(options.to_line)) {
      if (options.to_line <= 0) {
        throw new Error(
          `Invalid Option: to_line must be a positive integer greater than 0, got ${JSON.stringify(opts.to_line)}`,
        );
      }
    } else {
      throw new Error(
        `Invalid Option: to_line must be an integer, got ${JSON.stringify(opts.to_line)}`,
      );
    }
  }
  return options;
};

// Discussed in [issue #400](https://github.com/adaltas/node-csv/issues/400)
// See https://github.com/python/cpython/blob/ea1b1c579f600cc85d145c60862b2e6b98701b24/Lib/csv.py#L349
const delimiter_discover = function (records, options) {
  // Normalize the configuration
  if (!options) {
    ({ delimiter_auto: options } = normalize_options({ delimiter_auto: true }));
  }
  // Convert String to Buffer
  if (typeof records === "string") {
    records = Buffer.from(records);
  }
  // Convert Buffer to an array of records
  if (Buffer.isBuffer(records)) {
    records = ((data) => {
      const records = [];
      const parser = transform({ delimiter: [] });
      const push = (record) => records.push(record);
      const close = () => {};
      const error = parser.parse(data, true, push, close);
      if (error !== undefined) throw error;
      return records;
    })(records);
  }
  // Info array initialization, 127 entries, one per char code
  const info = Array(127)
    .fill()
    .map(() => ({ lines: [] }));
  // Traverse each records, count occurences per char code
  records.map(([record], line) => {
    for (let i = 0, l = record.length; i < l; i++) {
      // Count the character frequency
      const code = record.charCodeAt(i);
      if (info[code].lines[line] === undefined) info[code].lines[line] = 0;
      info[code].lines[line]++;
    }
  });
  // Traverse each char code, compute the score
  info.map((info, i) => {
    info.char_code = i;
    info.std = std(info.lines);
    info.total = info.lines.reduce((acc, val) => acc + val, 0);
    info.preferred = !!options.preferred[i];
    info.score = options.score(info, options);
  });
  // Extract the dominant character
  const result = info.reduce(
    (acc, info) => (acc.score > info.score ? acc : info),
    {},
  );
  return String.fromCharCode(result.char_code);
};

const std = function (array) {
  const n = array.length;
  if (n === 0) return 0;
  const mean = array.reduce((a, b) => a + b) / n;
  return Math.sqrt(
    array.map((x) => Math.pow(x - mean, 2)).reduce((a, b) => a + b) / n,
  );
};

const isRecordEmpty = function (record) {
  return record.every(
    (field) =>
      field == null || (field.toString && field.toString().trim() === ""),
  );
};

const cr = 13; // `\r`, carriage return, 0x0D in hexadécimal, 13 in decimal
const nl = 10; // `\n`, newline, 0x0A in hexadecimal, 10 in decimal

const boms = {
  // Note, the following are equals:
  // Buffer.from("\ufeff")
  // Buffer.from([239, 187, 191])
  // Buffer.from('EFBBBF', 'hex')
  utf8: Buffer.from([239, 187, 191]),
  // Note, the following are equals:
  // Buffer.from "\ufeff", 'utf16le
  // Buffer.from([255, 254])
  utf16le: Buffer.from([255, 254]),
};

const transform = function (original_options = {}) {
  const info = {
    bytes: 0,
    bytes_records: 0,
    comment_lines: 0,
    empty_lines: 0,
    invalid_field_length: 0,
    lines: 1,
    records: 0,
  };
  const options = normalize_options(original_options);
  return {
    info: info,
    original_options: original_options,
    options: options,
    state: init_state(options),
    __needMoreData: function (i, bufLen, end) {
      if (end) return false;
      const { encoding, escape, quote } = this.options;
      const { quoting, needMoreDataSize, recordDelimiterMaxLength } =
        this.state;
      const numOfCharLeft = bufLen - i - 1;
      const requiredLength = Math.max(
        needMoreDataSize,
        // Skip if the remaining buffer smaller than record delimiter
        // If "record_delimiter" is yet to be discovered:
        // 1. It is equals to `[]` and "recordDelimiterMaxLength" equals `0`
        // 2. We set the length to windows line ending in the current encoding
        // Note, that encoding is known from user or bom discovery at that point
        // recordDelimiterMaxLength,
        recordDelimiterMaxLength === 0
          ? Buffer.from("\r\n", encoding).length
          : recordDelimiterMaxLength,
        // Skip if remaining buffer can be an escaped quote
        quoting ? (escape === null ? 0 : escape.length) + quote.length : 0,
        // Skip if remaining buffer can be record delimiter following the closing quote
        quoting ? quote.length + recordDelimiterMaxLength : 0,
      );
      return numOfCharLeft < requiredLength;
    },
    // Central parser implementation
    parse: function (nextBuf, end, push, close) {
      const {
        bom,
        comment_no_infix,
        delimiter_auto,
        encoding,
        from_line,
        ltrim,
        max_record_size,
        raw,
        relax_quotes,
        rtrim,
        skip_empty_lines,
        to,
        to_line,
      } = this.options;
      let { comment, escape, quote, record_delimiter } = this.options;
      const {
        bomSkipped,
        delimiterDiscovered,
        delimiterBufPrevious,
        rawBuffer,
        escapeIsQuote,
      } = this.state;
      // Automatic delimiter discovery
      if (!delimiterDiscovered && delimiter_auto) {
        let delimiterBuf;
        if (delimiterBufPrevious === undefined) {
          delimiterBuf = nextBuf;
        } else if (
          delimiterBufPrevious !== undefined &&
          nextBuf === undefined
        ) {
          delimiterBuf = delimiterBufPrevious;
        } else {
          delimiterBuf = Buffer.concat([delimiterBufPrevious, nextBuf]);
        }
        // Ensure that nextBuf is not concatenated a second time during buffer reconciliation
        nextBuf = undefined;
        // this.delimiterBufPrevious = delimiterBuf;
        if (end || delimiterBuf.length > delimiter_auto.size) {
          this.options.delimiter = [
            Buffer.from(
              delimiter_discover(delimiterBuf, this.options.delimiter_auto),
            ),
          ];
          this.state.previousBuf = delimiterBuf;
          this.state.delimiterBufPrevious = undefined;
          this.state.delimiterDiscovered = true;
        } else {
          this.state.delimiterBufPrevious = delimiterBuf;
          return;
        }
      }
      // Previous buffers reconciliation
      const { previousBuf } = this.state;
      let buf;
      if (previousBuf === undefined) {
        if (nextBuf === undefined) {
          // Handle empty string
          close();
          return;
        } else {
          buf = nextBuf;
        }
      } else if (previousBuf !== undefined && nextBuf === undefined) {
        buf = previousBuf;
      } else {
        buf = Buffer.concat([previousBuf, nextBuf]);
      }
      // Handle UTF BOM
      if (bomSkipped === false) {
        if (bom === false) {
          this.state.bomSkipped = true;
        } else if (buf.length < 3) {
          // No enough data
          if (end === false) {
            // Wait for more data
            this.state.previousBuf = buf;
            return;
          }
        } else {
          for (const encoding in boms) {
            if (boms[encoding].compare(buf, 0, boms[encoding].length) === 0) {
              // Skip BOM
              const bomLength = boms[encoding].length;
              this.state.bufBytesStart += bomLength;
              buf = buf.slice(bomLength);
              // Renormalize original options with the new encoding
              const options = normalize_options({
                ...this.original_options,
                encoding: encoding,
              });
              // Properties are merged with the existing options instance
              for (const key in options) {
                this.options[key] = options[key];
              }
              // Options will re-evaluate the Buffer with the new encoding
              ({ comment, escape, quote } = this.options);
              break;
            }
          }
          this.state.bomSkipped = true;
        }
      }
      const bufLen = buf.length;
      let pos;
      for (pos = 0; pos < bufLen; pos++) {
        // Ensure we get enough space to look ahead
        // There should be a way to move this out of the loop
        if (this.__needMoreData(pos, bufLen, end)) {
          break;
        }
        if (this.state.wasRowDelimiter === true) {
          this.info.lines++;
          this.state.wasRowDelimiter = false;
        }
        if (to_line !== -1 && this.info.lines > to_line) {
          this.state.stop = true;
          close();
          return;
        }
        // Auto discovery of record_delimiter, unix, mac and windows supported
        if (this.state.quoting === false && record_delimiter.length === 0) {
          const record_delimiterCount = this.__autoDiscoverRecordDelimiter(
            buf,
            pos,
          );
          if (record_delimiterCount) {
            record_delimiter = this.options.record_delimiter;
          }
        }
        const chr = buf[pos];
        if (raw === true) {
          rawBuffer.append(chr);
        }
        if (
          (chr === cr || chr === nl) &&
          this.state.wasRowDelimiter === false
        ) {
          this.state.wasRowDelimiter = true;
        }
        // Previous char was a valid escape char
        // treat the current char as a regular char
        if (this.state.escaping === true) {
          this.state.escaping = false;
        } else {
          // Escape is only active inside quoted fields
          // We are quoting, the char is an escape chr and there is a chr to escape
          // if(escape !== null && this.state.quoting === true && chr === escape && pos + 1 < bufLen){
          if (
            escape !== null &&
            this.state.quoting === true &&
            this.__isEscape(buf, pos, chr) &&
            pos + escape.length < bufLen
          ) {
            if (escapeIsQuote) {
              if (this.__isQuote(buf, pos + escape.length)) {
                this.state.escaping = true;
                pos += escape.length - 1;
                continue;
              }
            } else {
              this.state.escaping = true;
              pos += escape.length - 1;
              continue;
            }
          }
          // Not currently escaping and chr is a quote
          // TODO: need to compare bytes instead of single char
          if (this.state.commenting === false && this.__isQuote(buf, pos)) {
            if (this.state.quoting === true) {
              const nextChr = buf[pos + quote.length];
              const isNextChrTrimable =
                rtrim && this.__isCharTrimable(buf, pos + quote.length);
              const isNextChrComment =
                comment !== null &&
                this.__compareBytes(comment, buf, pos + quote.length, nextChr);
              const isNextChrDelimiter = this.__isDelimiter(
                buf,
                pos + quote.length,
                nextChr,
              );
              const isNextChrRecordDelimiter =
                record_delimiter.length === 0
                  ? this.__autoDiscoverRecordDelimiter(buf, pos + quote.length)
                  : this.__isRecordDelimiter(nextChr, buf, pos + quote.length);
              // Escape a quote
              // Treat next char as a regular character
              if (
                escape !== null &&
                this.__isEscape(buf, pos, chr) &&
                this.__isQuote(buf, pos + escape.length)
              ) {
                pos += escape.length - 1;
              } else if (
                !nextChr ||
                isNextChrDelimiter ||
                isNextChrRecordDelimiter ||
                isNextChrComment ||
                isNextChrTrimable
              ) {
                this.state.quoting = false;
                this.state.wasQuoting = true;
                pos += quote.length - 1;
                continue;
              } else if (relax_quotes === false) {
                const err = this.__error(
                  new CsvError(
                    "CSV_INVALID_CLOSING_QUOTE",
                    [
                      "Invalid Closing Quote:",
                      `got "${String.fromCharCode(nextChr)}"`,
                      `at line ${this.info.lines}`,
                      "instead of delimiter, record delimiter, trimable character",
                      "(if activated) or comment",
                    ],
                    this.options,
                    this.__infoField(),
                  ),
                );
                if (err !== undefined) return err;
              } else {
                this.state.quoting = false;
                this.state.wasQuoting = true;
                this.state.field.prepend(quote);
                pos += quote.length - 1;
              }
            } else {
              if (this.state.field.length !== 0) {
                // In relax_quotes mode, treat opening quote preceded by chrs as regular
                if (relax_quotes === false) {
                  const info = this.__infoField();
                  const bom = Object.keys(boms)
                    .map((b) =>
                      boms[b].equals(this.state.field.toString()) ? b : false,
                    )
                    .filter(Boolean)[0];
                  const err = this.__error(
                    new CsvError(
                      "INVALID_OPENING_QUOTE",
                      [
                        "Invalid Opening Quote:",
                        `a quote is found on field ${JSON.stringify(info.column)} at line ${info.lines}, value is ${JSON.stringify(this.state.field.toString(encoding))}`,
                        bom ? `(${bom} bom)` : undefined,
                      ],
                      this.options,
                      info,
                      {
                        field: this.state.field,
                      },
                    ),
                  );
                  if (err !== undefined) return err;
                }
              } else {
                this.state.quoting = true;
                pos += quote.length - 1;
                continue;
              }
            }
          }
          if (this.state.quoting === false) {
            const recordDelimiterLength = this.__isRecordDelimiter(
              chr,
              buf,
              pos,
            );
            if (recordDelimiterLength !== 0) {
              // Do not emit comments which take a full line
              const skipCommentLine =
                this.state.commenting &&
                this.state.wasQuoting === false &&
                this.state.record.length === 0 &&
                this.state.field.length === 0;
              if (skipCommentLine) {
                this.info.comment_lines++;
                // Skip full comment line
              } else {
                // Activate records emission if above from_line
                if (
                  this.state.enabled === false &&
                  this.info.lines +
                    (this.state.wasRowDelimiter === true ? 1 : 0) >=
                    from_line
                ) {
                  this.state.enabled = true;
                  this.__resetField();
                  this.__resetRecord();
                  pos += recordDelimiterLength - 1;
                  continue;
                }
                // Skip if line is empty and skip_empty_lines activated
                if (
                  skip_empty_lines === true &&
                  this.state.wasQuoting === false &&
                  this.state.record.length === 0 &&
                  this.state.field.length === 0
                ) {
                  this.info.empty_lines++;
                  pos += recordDelimiterLength - 1;
                  continue;
                }
                this.info.bytes = this.state.bufBytesStart + pos;
                const errField = this.__onField();
                if (errField !== undefined) return errField;
                this.info.bytes =
                  this.state.bufBytesStart + pos + recordDelimiterLength;
                const errRecord = this.__onRecord(push);
                if (errRecord !== undefined) return errRecord;
                if (to !== -1 && this.info.records >= to) {
                  this.state.stop = true;
                  close();
                  return;
                }
              }
              this.state.commenting = false;
              pos += recordDelimiterLength - 1;
              continue;
            }
            if (this.state.commenting) {
              continue;
            }
            if (
              comment !== null &&
              (comment_no_infix === false ||
                (this.state.record.length === 0 &&
                  this.state.field.length === 0))
            ) {
              const commentCount = this.__compareBytes(comment, buf, pos, chr);
              if (commentCount !== 0) {
                this.state.commenting = true;
                continue;
              }
            }
            const delimiterLength = this.__isDelimiter(buf, pos, chr);
            if (delimiterLength !== 0) {
              this.info.bytes = this.state.bufBytesStart + pos;
              const errField = this.__onField();
              if (errField !== undefined) return errField;
              pos += delimiterLength - 1;
              continue;
            }
          }
        }
        if (this.state.commenting === false) {
          if (
            max_record_size !== 0 &&
            this.state.record_length + this.state.field.length > max_record_size
          ) {
            return this.__error(
              new CsvError(
                "CSV_MAX_RECORD_SIZE",
                [
                  "Max Record Size:",
                  "record exceed the maximum number of tolerated bytes",
                  `of ${max_record_size}`,
                  `at line ${this.info.lines}`,
                ],
                this.options,
                this.__infoField(),
              ),
            );
          }
        }
        const lappend =
          ltrim === false ||
          this.state.quoting === true ||
          this.state.field.length !== 0 ||
          !this.__isCharTrimable(buf, pos);
        // rtrim in non quoting is handle in __onField
        const rappend = rtrim === false || this.state.wasQuoting === false;
        if (lappend === true && rappend === true) {
          this.state.field.append(chr);
        } else if (rtrim === true && !this.__isCharTrimable(buf, pos)) {
          return this.__error(
            new CsvError(
              "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE",
              [
                "Invalid Closing Quote:",
                "found non trimable byte after quote",
                `at line ${this.info.lines}`,
              ],
              this.options,
              this.__infoField(),
            ),
          );
        } else {
          if (lappend === false) {
            pos += this.__isCharTrimable(buf, pos) - 1;
          }
          continue;
        }
      }
      if (end === true) {
        // Ensure we are not ending in a quoting state
        if (this.state.quoting === true) {
          const err = this.__error(
            new CsvError(
              "CSV_QUOTE_NOT_CLOSED",
              [
                "Quote Not Closed:",
                `the parsing is finished with an opening quote at line ${this.info.lines}`,
              ],
              this.options,
              this.__infoField(),
            ),
          );
          if (err !== undefined) return err;
        } else {
          // Skip last line if it has no characters
          if (
            this.state.wasQuoting === true ||
            this.state.record.length !== 0 ||
            this.state.field.length !== 0
          ) {
            this.info.bytes = this.state.bufBytesStart + pos;
            const errField = this.__onField();
            if (errField !== undefined) return errField;
            const errRecord = this.__onRecord(push);
            if (errRecord !== undefined) return errRecord;
          } else if (this.state.wasRowDelimiter === true) {
            this.info.empty_lines++;
          } else if (this.state.commenting === true) {
            this.info.comment_lines++;
          }
        }
      } else {
        this.state.bufBytesStart += pos;
        this.state.previousBuf = buf.slice(pos);
      }
      if (this.state.wasRowDelimiter === true) {
        this.info.lines++;
        this.state.wasRowDelimiter = false;
      }
    },
    __onRecord: function (push) {
      const {
        columns,
        group_columns_by_name,
        encoding,
        info,
        from,
        relax_column_count,
        relax_column_count_less,
        relax_column_count_more,
        raw,
        skip_records_with_empty_values,
      } = this.options;
      const { enabled, record } = this.state;
      if (enabled === false) {
        return this.__resetRecord();
      }
      // Convert the first line into column names
      const recordLength = record.length;
      if (columns === true) {
        if (skip_records_with_empty_values === true && isRecordEmpty(record)) {
          this.__resetRecord();
          return;
        }
        return this.__firstLineToColumns(record);
      }
      if (columns === false && this.info.records === 0) {
        this.state.expectedRecordLength = recordLength;
      }
      if (recordLength !== this.state.expectedRecordLength) {
        const err =
          columns === false
            ? new CsvError(
                "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH",
                [
                  "Invalid Record Length:",
                  `expect ${this.state.expectedRecordLength},`,
                  `got ${recordLength} on line ${this.info.lines}`,
                ],
                this.options,
                this.__infoField(),
                {
                  record: record,
                },
              )
            : new CsvError(
                "CSV_RECORD_INCONSISTENT_COLUMNS",
                [
                  "Invalid Record Length:",
                  `columns length is ${columns.length},`, // rename columns
                  `got ${recordLength} on line ${this.info.lines}`,
                ],
                this.options,
                this.__infoField(),
                {
                  record: record,
                },
              );
        if (
          relax_column_count === true ||
          (relax_column_count_less === true &&
            recordLength < this.state.expectedRecordLength) ||
          (relax_column_count_more === true &&
            recordLength > this.state.expectedRecordLength)
        ) {
          this.info.invalid_field_length++;
          this.state.error = err;
          // Error is undefined with skip_records_with_error
        } else {
          const finalErr = this.__error(err);
          if (finalErr) return finalErr;
        }
      }
      if (skip_records_with_empty_values === true && isRecordEmpty(record)) {
        this.__resetRecord();
        return;
      }
      if (this.state.recordHasError === true) {
        this.__resetRecord();
        this.state.recordHasError = false;
        return;
      }
      this.info.records++;
      if (from === 1 || this.info.records >= from) {
        const { objname } = this.options;
        // With columns, records are object
        if (columns !== false) {
          const obj = {};
          // Transform record array to an object
          for (let i = 0, l = record.length; i < l; i++) {
            if (columns[i] === undefined || columns[i].disabled) continue;
            // Turn duplicate columns into an array
            if (
              group_columns_by_name === true &&
              Object.hasOwn(obj, columns[i].name)
            ) {
              if (Array.isArray(obj[columns[i].name])) {
                obj[columns[i].name] = obj[columns[i].name].concat(record[i]);
              } else {
                obj[columns[i].name] = [obj[columns[i].name], record[i]];
              }
            } else {
              Object.defineProperty(obj, columns[i].name, {
                value: record[i],
                enumerable: true,
                writable: true,
                configurable: true,
              });
            }
          }
          // Without objname (default)
          if (raw === true || info === true) {
            const extRecord = Object.assign(
              { record: obj },
              raw === true
                ? { raw: this.state.rawBuffer.toString(encoding) }
                : {},
              info === true ? { info: this.__infoRecord() } : {},
            );
            const err = this.__push(
              objname === undefined ? extRecord : [obj[objname], extRecord],
              push,
            );
            if (err) {
              return err;
            }
          } else {
            const err = this.__push(
              objname === undefined ? obj : [obj[objname], obj],
              push,
            );
            if (err) {
              return err;
            }
          }
          // Without columns, records are array
        } else {
          if (raw === true || info === true) {
            const extRecord = Object.assign(
              { record: record },
              raw === true
                ? { raw: this.state.rawBuffer.toString(encoding) }
                : {},
              info === true ? { info: this.__infoRecord() } : {},
            );
            const err = this.__push(
              objname === undefined ? extRecord : [record[objname], extRecord],
              push,
            );
            if (err) {
              return err;
            }
          } else {
            const err = this.__push(
              objname === undefined ? record : [record[objname], record],
              push,
            );
            if (err) {
              return err;
            }
          }
        }
      }
      this.__resetRecord();
    },
    __firstLineToColumns: function (record) {
      const { firstLineToHeaders } = this.state;
      try {
        const headers =
          firstLineToHeaders === undefined
            ? record
            : firstLineToHeaders.call(null, record);
        if (!Array.isArray(headers)) {
          return this.__error(
            new CsvError(
              "CSV_INVALID_COLUMN_MAPPING",
              [
                "Invalid Column Mapping:",
                "expect an array from column function,",
                `got ${JSON.stringify(headers)}`,
              ],
              this.options,
              this.__infoField(),
              {
                headers: headers,
              },
            ),
          );
        }
        const normalizedHeaders = normalize_columns_array(headers);
        this.state.expectedRecordLength = normalizedHeaders.length;
        this.options.columns = normalizedHeaders;
        this.__resetRecord();
        return;
      } catch (err) {
        return err;
      }
    },
    __resetRecord: function () {
      if (this.options.raw === true) {
        this.state.rawBuffer.reset();
      }
      this.state.error = undefined;
      this.state.record = [];
      this.state.record_length = 0;
    },
    __onField: function () {
      const { cast, encoding, rtrim, max_record_size } = this.options;
      const { enabled, wasQuoting } = this.state;
      // Short circuit for the from_line options
      if (enabled === false) {
        return this.__resetField();
      }
      let field = this.state.field.toString(encoding);
      if (rtrim === true && wasQuoting === false) {
        field = field.trimRight();
      }
      if (cast === true) {
        const [err, f] = this.__cast(field);
        if (err !== undefined) return err;
        field = f;
      }
      this.state.record.push(field);
      // Increment record length if record size must not exceed a limit
      if (max_record_size !== 0 && typeof field === "string") {
        this.state.record_length += field.length;
      }
      this.__resetField();
    },
    __resetField: function () {
      this.state.field.reset();
      this.state.wasQuoting = false;
    },
    __push: function (record, push) {
      const { on_record } = this.options;
      if (on_record !== undefined) {
        const info = this.__infoRecord();
        try {
          record = on_record.call(null, record, info);
        } catch (err) {
          return err;
        }
        if (record === undefined || record === null) {
          return;
        }
      }
      this.info.bytes_records += this.info.bytes;
      push(record);
    },
    // Return a tuple with the error and the casted value
    __cast: function (field) {
      const { columns, relax_column_count } = this.options;
      const isColumns = Array.isArray(columns);
      // Dont loose time calling cast
      // because the final record is an object
      // and this field can't be associated to a key present in columns
      if (
        isColumns === true &&
        relax_column_count &&
        this.options.columns.length <= this.state.record.length
      ) {
        return [undefined, undefined];
      }
      if (this.state.castField !== null) {
        try {
          const info = this.__infoField();
          return [undefined, this.state.castField.call(null, field, info)];
        } catch (err) {
          return [err];
        }
      }
      if (this.__isFloat(field)) {
        return [undefined, parseFloat(field)];
      } else if (this.options.cast_date !== false) {
        const info = this.__infoField();
        return [undefined, this.options.cast_date.call(null, field, info)];
      }
      return [undefined, field];
    },
    __compareBytes: function (sourceBuf, targetBuf, targetPos, firstByte) {
      if (sourceBuf[0] !== firstByte) return 0;
      const sourceLength = sourceBuf.length;
      for (let i = 1; i < sourceLength; i++) {
        if (sourceBuf[i] !== targetBuf[targetPos + i]) return 0;
      }
      return sourceLength;
    },
    // Helper to test if a character is trimable
    __isCharTrimable: function (buf, pos) {
      const { timchars, timcharFirstBytes } = this.state;
      // Fast bail-out: non-whitespace bytes (the common case) are rejected
      // without scanning the full timchar list.
      const first = buf[pos];
      if (first === undefined || timcharFirstBytes[first] === 0) return 0;
      loop1: for (let i = 0; i < timchars.length; i++) {
        const timchar = timchars[i];
        for (let j = 0; j < timchar.length; j++) {
          if (timchar[j] !== buf[pos + j]) continue loop1;
        }
        return timchar.length;
      }
      return 0;
    },
    __isDelimiter: function (buf, pos, chr) {
      const { delimiter, ignore_last_delimiters } = this.options;
      if (
        ignore_last_delimiters === true &&
        this.state.record.length === this.options.columns.length - 1
      ) {
        return 0;
      } else if (
        ignore_last_delimiters !== false &&
        typeof ignore_last_delimiters === "number" &&
        this.state.record.length === ignore_last_delimiters - 1
      ) {
        return 0;
      }
      loop1: for (let i = 0; i < delimiter.length; i++) {
        const del = delimiter[i];
        if (del[0] === chr) {
          for (let j = 1; j < del.length; j++) {
            if (del[j] !== buf[pos + j]) continue loop1;
          }
          return del.length;
        }
      }
      return 0;
    },
    __isEscape: function (buf, pos, chr) {
      const { escape } = this.options;
      if (escape === null) return false;
      const l = escape.length;
      if (escape[0] === chr) {
        for (let i = 0; i < l; i++) {
          if (escape[i] !== buf[pos + i]) {
            return false;
          }
        }
        return true;
      }
      return false;
    },
    __isFloat: function (value) {
      return value - parseFloat(value) + 1 >= 0; // Borrowed from jquery
    },
    // Keep it in case we implement the `cast_int` option
    // __isInt(value){
    //   // return Number.isInteger(parseInt(value))
    //   // return !isNaN( parseInt( obj ) );
    //   return /^(\-|\+)?[1-9][0-9]*$/.test(value)
    // }
    __isQuote: function (buf, pos) {
      const { quote } = this.options;
      if (quote === null) return false;
      const l = quote.length;
      for (let i = 0; i < l; i++) {
        if (quote[i] !== buf[pos + i]) {
          return false;
        }
      }
      return true;
    },
    __isRecordDelimiter: function (chr, buf, pos) {
      const { record_delimiter } = this.options;
      const recordDelimiterLength = record_delimiter.length;
      loop1: for (let i = 0; i < recordDelimiterLength; i++) {
        const rd = record_delimiter[i];
        const rdLength = rd.length;
        if (rd[0] !== chr) {
          continue;
        }
        for (let j = 1; j < rdLength; j++) {
          if (rd[j] !== buf[pos + j]) {
            continue loop1;
          }
        }
        return rd.length;
      }
      return 0;
    },
    __autoDiscoverRecordDelimiter: function (buf, pos) {
      const { encoding } = this.options;
      // Note, we don't need to cache this information in state,
      // It is only called on the first line until we find out a suitable
      // record delimiter.
      const rds = [
        // Important, the windows line ending must be before mac os 9
        Buffer.from("\r\n", encoding),
        Buffer.from("\n", encoding),
        Buffer.from("\r", encoding),
      ];
      loop: for (let i = 0; i < rds.length; i++) {
        const l = rds[i].length;
        for (let j = 0; j < l; j++) {
          if (rds[i][j] !== buf[pos + j]) {
            continue loop;
          }
        }
        this.options.record_delimiter.push(rds[i]);
        this.state.recordDelimiterMaxLength = rds[i].length;
        return rds[i].length;
      }
      return 0;
    },
    __error: function (msg) {
      const { encoding, raw, skip_records_with_error } = this.options;
      const err = typeof msg === "string" ? new Error(msg) : msg;
      if (skip_records_with_error) {
        this.state.recordHasError = true;
        if (this.options.on_skip !== undefined) {
          try {
            this.options.on_skip(
              err,
              raw ? this.state.rawBuffer.toString(encoding) : undefined,
            );
          } catch (err) {
            return err;
          }
        }
        // this.emit('skip', err, raw ? this.state.rawBuffer.toString(encoding) : undefined);
        return undefined;
      } else {
        return err;
      }
    },
    __infoDataSet: function () {
      return {
        ...this.info,
        columns: this.options.columns,
      };
    },
    __infoRecord: function () {
      const { columns, raw, encoding } = this.options;
      return {
        ...this.__infoDataSet(),
        bytes_records: this.info.bytes,
        error: this.state.error,
        header: columns === true,
        index: this.state.record.length,
        raw: raw ? this.state.rawBuffer.toString(encoding) : undefined,
      };
    },
    __infoField: function () {
      const { columns } = this.options;
      const isColumns = Array.isArray(columns);
      // Bytes records are only incremented when all records'fields are parsed
      const bytes_records = this.info.bytes_records;
      return {
        ...this.__infoRecord(),
        bytes_records: bytes_records,
        column:
          isColumns === true
            ? columns.length > this.state.record.length
              ? columns[this.state.record.length].name
              : null
            : this.state.record.length,
        quoting: this.state.wasQuoting,
      };
    },
  };
};

const parse = function (data, opts = {}) {
  if (typeof data === "string") {
    data = Buffer.from(data);
  }
  const records = opts && opts.objname ? Object.create(null) : [];
  const parser = transform(opts);
  const push = (record) => {
    if (parser.options.objname === undefined) records.push(record);
    else {
      records[record[0]] = record[1];
    }
  };
  const close = () => {};
  const error = parser.parse(data, true, push, close);
  if (error !== undefined) throw error;
  return records;
};

class EnoughRows extends Error {
}
function readTrace(bytes, options) {
    const { path, layout, selection } = options;
    const rows = new TraceRows(path, layout, selection);
    try {
        if (layout.format === "csv")
            readCsvRows(bytes, path, layout, (row) => rows.take(row));
        else
            readJsonRows(bytes, path, layout, (row) => rows.take(row));
    }
    catch (error) {
        if (!(error instanceof EnoughRows))
            throw error;
    }
    const summary = rows.summary;
    if (rows.sessions.length === 0)
        throw new InputError(`${path}: no requests to replay (${summary.rows} rows read, ${summary.filtered} left out by the filters and window, ${summary.empty} with 0 input or output tokens)`);
    const replayed = sampleSessions(inTimeOrder(rows.sessions), selection.sample, options.seed);
    summary.sessions = replayed.length;
    summary.requests = replayed.reduce((sum, session) => sum + session.turns.length, 0);
    return { sessions: replayed, summary };
}
/**
 * Sessions start in the order of their first request (stable for equal times), on a clock from the
 * earliest one.
 */
function inTimeOrder(sessions) {
    const ordered = sessions
        .map((session, order) => ({ session, order }))
        .sort((a, b) => a.session.turns[0].timestampMs - b.session.turns[0].timestampMs || a.order - b.order)
        .map(({ session }) => session);
    const start = ordered[0].turns[0].timestampMs;
    if (start !== 0)
        for (const session of ordered)
            for (const turn of session.turns)
                turn.timestampMs -= start;
    return ordered;
}
/**
 * A trace's rows as they are read: each checked (naming file, line and column), kept or counted as
 * filtered or empty, and added to its session; at `max_rows` kept, reading stops (EnoughRows).
 */
class TraceRows {
    path;
    layout;
    selection;
    sessions = [];
    summary = { rows: 0, empty: 0, filtered: 0, kept: 0, sessions: 0, requests: 0 };
    bySession = new Map();
    origin = null;
    windowStartMs;
    windowEndMs;
    constructor(path, layout, selection) {
        this.path = path;
        this.layout = layout;
        this.selection = selection;
        // Without a window every row is kept, those before the file's first row included (an unsorted file).
        this.windowStartMs =
            selection.window === undefined ? Number.NEGATIVE_INFINITY : selection.window.start_s * 1000;
        this.windowEndMs = selection.window?.end_s === undefined ? null : selection.window.end_s * 1000;
    }
    take(row) {
        const { layout, summary } = this;
        summary.rows++;
        const where = (column) => `${this.path}:${row.line}, column ${JSON.stringify(column)}`;
        const arrival = parseArrival(row.value(layout.arrival.column), layout.arrival.unit, () => where(layout.arrival.column));
        this.origin ??= arrival;
        // Whole ms and fractions apart: an epoch's 1.7e12 ms would round a microsecond away.
        const timestampMs = arrival.wholeMs - this.origin.wholeMs + (arrival.fractionMs - this.origin.fractionMs);
        const input = tokenCount(row.value(layout.inputTokens), () => where(layout.inputTokens));
        const output = tokenCount(row.value(layout.outputTokens), () => where(layout.outputTokens));
        const hashIds = layout.hashIds === null ? [] : parseHashIds(row.value(layout.hashIds), where(layout.hashIds));
        const sessionId = layout.session === null ? null : parseSessionId(row.value(layout.session), where(layout.session));
        if (!this.selected(row, timestampMs)) {
            summary.filtered++;
            return;
        }
        if (input === 0 || output === 0) {
            summary.empty++;
            return;
        }
        const limit = configLimits.traceRequests;
        if (summary.kept >= limit)
            throw new InputError(`${this.path}: more than ${limit} rows pass the filters (the limit on a trace's requests; see docs/config-reference.md#limits); keep fewer with window, max_rows or sample`);
        summary.kept++;
        this.add({ timestampMs, inputTokens: input, maxTokens: output, hashIds }, sessionId, row, where);
        if (this.selection.max_rows !== undefined && summary.kept >= this.selection.max_rows)
            throw new EnoughRows();
    }
    /** The row passes the filters and lies in the window. */
    selected(row, timestampMs) {
        return (!this.layout.filters.some((filter) => !filter.values.includes(String(row.value(filter.column) ?? ""))) &&
            timestampMs >= this.windowStartMs &&
            (this.windowEndMs === null || timestampMs < this.windowEndMs));
    }
    /** A kept row's turn, appended to its session (in time order, at most configLimits.sessionTurns) or a new one. */
    add(turn, sessionId, row, where) {
        const layout = this.layout;
        const known = sessionId === null ? undefined : this.bySession.get(sessionId);
        if (!known) {
            const session = { turns: [turn] };
            this.sessions.push(session);
            if (sessionId !== null)
                this.bySession.set(sessionId, session);
            return;
        }
        if (known.turns.length >= configLimits.sessionTurns)
            throw new InputError(`${where(layout.session)}: session ${JSON.stringify(row.value(layout.session))} has more than ${configLimits.sessionTurns} turns (the limit on turns per session; see docs/config-reference.md#limits)`);
        const previous = known.turns.at(-1).timestampMs;
        if (turn.timestampMs < previous)
            throw new InputError(`${where(layout.arrival.column)}: expected the turns of session ${JSON.stringify(row.value(layout.session))} in time order, got ${describeCell(row.value(layout.arrival.column))}, ${formatMs(previous - turn.timestampMs)} ms before the session's previous turn`);
        known.turns.push(turn);
    }
}
/** A seeded sample of `count` sessions, kept in time order (all of them when there are no more). */
function sampleSessions(sessions, count, seed) {
    if (count === undefined || count >= sessions.length)
        return sessions;
    const chosen = shuffledIndexes(createRng(seed, "trace sample"), sessions.length)
        .slice(0, count)
        .sort((a, b) => a - b);
    return chosen.map((index) => sessions[index]);
}
/** The columns a layout reads: each must be in a CSV's header. */
function layoutColumns(layout) {
    return [
        layout.arrival.column,
        layout.inputTokens,
        layout.outputTokens,
        ...(layout.session === null ? [] : [layout.session]),
        ...(layout.hashIds === null ? [] : [layout.hashIds]),
        ...layout.filters.map((filter) => filter.column),
    ];
}
function readCsvRows(bytes, path, layout, take) {
    try {
        parse(bytes, {
            bom: true,
            skip_empty_lines: true,
            max_record_size: configLimits.traceLineBytes,
            columns: (header) => {
                const names = header.map((name) => name.trim());
                const missing = [...new Set(layoutColumns(layout))].filter((column) => !names.includes(column));
                if (missing.length > 0)
                    throw new InputError(`${path}:1: expected a header with the ${layout.name}'s column${missing.length === 1 ? "" : "s"} ${missing.map((column) => JSON.stringify(column)).join(", ")}, got ${names.map((name) => JSON.stringify(name)).join(", ")}`);
                return names;
            },
            on_record: (record, context) => {
                take({ line: context.lines, value: (column) => record[column] });
                return null;
            },
        });
    }
    catch (error) {
        if (error instanceof CsvError) {
            const line = typeof error.lines === "number" ? `:${error.lines}` : "";
            const reason = error.code === "CSV_MAX_RECORD_SIZE"
                ? `a record longer than ${configLimits.traceLineBytes} bytes (the limit on a trace line; see docs/config-reference.md#limits)`
                : error.message;
            throw new InputError(`${path}${line}: not valid CSV: ${reason}`);
        }
        throw error;
    }
}
function readJsonRows(bytes, path, layout, take) {
    let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    for (let line = 1; start < bytes.length; line++) {
        const newline = bytes.indexOf(0x0a, start);
        const end = newline === -1 ? bytes.length : newline;
        if (end - start > configLimits.traceLineBytes)
            throw new InputError(`${path}:${line}: a line longer than ${configLimits.traceLineBytes} bytes (the limit on a trace line; see docs/config-reference.md#limits)`);
        const text = bytes.toString("utf8", start, end).trim();
        start = end + 1;
        if (text === "")
            continue;
        let value;
        try {
            value = JSON.parse(text);
        }
        catch (error) {
            throw new InputError(`${path}:${line}: not valid JSON (${error.message})`);
        }
        if (!value || typeof value !== "object" || Array.isArray(value))
            throw new InputError(`${path}:${line}: expected a JSON object with ${layoutColumns(layout)
                .map((column) => JSON.stringify(column))
                .join(", ")}`);
        const record = value;
        take({ line, value: (column) => record[column] });
    }
}
function describeCell(value) {
    if (value === undefined)
        return "nothing (no such column in this row)";
    if (value === "")
        return "an empty cell";
    return JSON.stringify(value);
}
/** A cell's number: a JSON number, or a CSV's text of one; NaN for anything else (an empty cell too). */
function numberOf(value) {
    if (typeof value === "number")
        return value;
    return typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
}
/** A whole number of tokens, 0 to the token limit; CSV's "374" and "374.0" alike. */
function tokenCount(value, where) {
    const number = numberOf(value);
    if (!Number.isInteger(number) || number < 0 || number > configLimits.tokens)
        throw new InputError(`${where()}: expected a whole number of tokens from 0 to ${configLimits.tokens} (the limit on token counts; see docs/config-reference.md#limits), got ${describeCell(value)}`);
    return number;
}
const unitMs = { s: 1000, ms: 1, us: 0.001 };
/** An arrival time (on the file's own origin). */
function parseArrival(value, unit, where) {
    if (unit === "datetime") {
        const instant = typeof value === "string" ? parseDateTimeInstant(value.trim()) : null;
        if (instant === null)
            throw new InputError(`${where()}: expected a date and time such as "2023-11-16 18:15:46.6805900" or "2024-05-10T00:00:00.009930+00:00", got ${describeCell(value)}`);
        return instant;
    }
    const number = numberOf(value);
    if (!Number.isFinite(number))
        throw new InputError(`${where()}: expected a number of ${unitName[unit]}, got ${describeCell(value)}`);
    return { wholeMs: number * unitMs[unit], fractionMs: 0 };
}
const unitName = {
    s: "seconds",
    ms: "milliseconds",
    us: "microseconds",
};
const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
function parseDateTimeInstant(text) {
    const match = dateTimePattern.exec(text);
    if (!match)
        return null;
    const dayMs = dayStart(text.slice(0, 10), match);
    const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])];
    if (dayMs === null || hour > 23 || minute > 59 || second > 59)
        return null;
    const fraction = match[7] ? Number(`0.${match[7]}`) * 1000 : 0;
    const zone = match[8];
    let offsetMs = 0;
    if (zone && zone.toUpperCase() !== "Z") {
        const sign = zone.startsWith("-") ? -1 : 1;
        const digits = zone.slice(1).replace(":", "");
        offsetMs = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0")) * 60_000;
    }
    return { wholeMs: dayMs + ((hour * 60 + minute) * 60 + second) * 1000 - offsetMs, fractionMs: fraction };
}
/** The last day read (a trace's rows share their day): its text and its start in ms, or null for no day. */
let lastDay = { text: "", ms: null };
/** The start of a date's day in ms (UTC); null for a month or day out of range (2023-02-30). */
function dayStart(text, match) {
    if (lastDay.text === text)
        return lastDay.ms;
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    let ms = null;
    if (month >= 1 && month <= 12 && day >= 1) {
        ms = Date.UTC(year, month - 1, day);
        // Date.UTC rolls 2023-02-31 over into March: a day beyond its month is no date.
        if (new Date(ms).getUTCDate() !== day)
            ms = null;
    }
    lastDay = { text, ms };
    return ms;
}
/** Prefix-hash ids: a JSON list (JSON Lines, or a CSV cell "[1, 2]"), or whole numbers separated by spaces, ';' or '|'. */
function parseHashIds(value, where) {
    let ids = value;
    if (value === undefined || value === null || value === "")
        return [];
    if (typeof value === "string") {
        const text = value.trim();
        if (text.startsWith("[")) {
            try {
                ids = JSON.parse(text);
            }
            catch {
                ids = null;
            }
        }
        else
            ids = text.split(/[\s;|]+/).map((part) => (/^\d+$/.test(part) ? Number(part) : Number.NaN));
    }
    if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id) && id >= 0))
        throw new InputError(`${where}: expected a list of whole numbers >= 0 (a JSON list, or numbers separated by spaces, ';' or '|'), got ${describeCell(value)}`);
    return ids;
}
/** A session id: a string or a number; an empty cell (or no key) is a row without a session. */
function parseSessionId(value, where) {
    if (value === undefined || value === null || value === "")
        return null;
    if (typeof value === "string" || typeof value === "number")
        return String(value);
    throw new InputError(`${where}: expected a session id (a string or a number), got ${describeCell(value)}`);
}
function formatMs(ms) {
    return Number.isInteger(ms) ? String(ms) : ms.toFixed(3);
}
/** What a trace's selection kept, in words: the notes of its runs and `validate`'s line. */
function describeTraceRead(summary) {
    const left = [
        summary.filtered > 0 ? `${summary.filtered} left out by the filters and window` : "",
        summary.empty > 0 ? `${summary.empty} with 0 input or output tokens skipped` : "",
    ].filter((part) => part !== "");
    const sessions = summary.sessions === summary.requests
        ? `${summary.requests} requests`
        : `${summary.sessions} sessions (${summary.requests} requests)`;
    const sampled = summary.kept > summary.requests ? ` (sampled from ${summary.kept} rows)` : "";
    return `trace: ${summary.rows} rows read${left.length > 0 ? `, ${left.join(", ")}` : ""}; ${sessions} to replay${sampled}`;
}

/** Draws one token count from a configured length distribution, clipped to [min, max] and >= 1. */
function drawLength(length, rng) {
    if (typeof length === "number")
        return length;
    switch (length.distribution) {
        case "fixed":
            return length.value;
        case "uniform": {
            const low = Math.min(length.min, length.max);
            const high = Math.max(length.min, length.max);
            return rng.int(low, high);
        }
        case "normal":
            return clip(Math.round(length.mean + length.sd * rng.normal()), length.min, length.max);
        case "lognormal":
            return clip(Math.round(length.median * Math.exp(length.sigma * rng.normal())), length.min, length.max);
    }
}
function clip(value, min, max) {
    const lower = Math.max(1, min);
    const clipped = Math.max(lower, value);
    return max === undefined ? clipped : Math.min(max, clipped);
}

/**
 * The fan-outs of one session of `turns` turns: per turn (0-based) its branches, or null for a turn of one
 * request. Drawn from `rng`, the session's own fan-out stream, so a config without fan-out (or another
 * fan-out) leaves the session's turns, lengths and waits as they were.
 */
function planFanOuts(fanOut, turns, rng, tokenModel) {
    if (fanOut === undefined)
        return Array.from({ length: turns }, () => null);
    const chosen = new Set(fanOut.turns ?? []);
    return Array.from({ length: turns }, (_, turn) => {
        const fansOut = fanOut.turns !== undefined ? chosen.has(turn + 1) : rng.next() < fanOut.share;
        if (!fansOut)
            return null;
        const count = typeof fanOut.branches === "number"
            ? fanOut.branches
            : rng.int(fanOut.branches.min, fanOut.branches.max);
        const branches = Array.from({ length: count }, () => {
            const messageTokens = drawLength(fanOut.message_tokens, rng);
            const maxTokens = drawLength(fanOut.output_tokens, rng);
            return {
                content: randomWords(rng, wordsForPart(tokenModel, messageTokens)),
                messageTokens,
                maxTokens,
            };
        });
        return { branches, tools: fanOut.tools };
    });
}

/** Tool-call rounds a turn may take before the session goes on (a model that keeps calling tools). */
const maxToolRoundsPerTurn = 4;
function sessionDraws(seed, cell) {
    return (phase, ...keys) => createRng(seed, cell.name, phase, ...keys);
}
/** A session's fan-outs, drawn from a stream of their own (./fan-out.ts). */
function sessionFanOuts(fanOut, turns, { draws, tokenModel }, phase, index) {
    return planFanOuts(fanOut, turns, draws(phase, "fan-out", index), tokenModel);
}
/** The sessions a session kind's file holds, read once per cell by the runner. */
function fileSessions(cell, type, file) {
    if (!file?.sessions)
        throw new Error(`cell ${cell.name}: the ${type} file was not read before building the workload`);
    return file.sessions;
}
/**
 * The script of a session read from a file (a conversation, a trace's session): its system prompt as the
 * file gives it (never a shared one), its turns, no tools.
 */
function fileSessionScript(index, phase, entry, context, turns) {
    return {
        index,
        phase,
        system: entry.system,
        sharedSystem: false,
        systemTokens: null,
        context,
        turns,
        tools: null,
    };
}
/**
 * Session start offsets of a trace (ms from its first session), for `count` sessions: the trace in its
 * order, then again from its start, each repetition one trace span plus one mean gap later.
 */
function traceArrivals(sessions, count) {
    const starts = sessions.map((session) => session.turns[0]?.timestampMs ?? 0);
    const first = starts[0] ?? 0;
    const offsets = starts.map((start) => Math.max(0, start - first));
    const span = offsets.at(-1) ?? 0;
    const period = span + (offsets.length > 1 ? span / (offsets.length - 1) : 1000);
    return Array.from({ length: count }, (_, index) => offsets[index % offsets.length] + Math.floor(index / offsets.length) * period);
}
/**
 * The tools a session's requests declare: each a function of one string argument (the mocked tool's
 * result does not depend on it), in the OpenAI chat API's `tools` shape.
 */
function sessionToolDefinitions(names) {
    return names.map((name) => ({
        type: "function",
        function: {
            name,
            description: `The benchmark's mocked ${name} tool: returns a seeded text.`,
            parameters: {
                type: "object",
                properties: { input: { type: "string" } },
                required: ["input"],
            },
        },
    }));
}
/**
 * The conversation of one session as the client holds it: what each turn sends is every message so far
 * and the new one (the server's answers as it gave them), or, for a trace, the turn's prompt as given.
 */
class Conversation {
    script;
    history;
    /** `history`: a branch's start (the conversation it forks); a session starts from its system prompt. */
    constructor(script, history) {
        this.script = script;
        this.history =
            history !== undefined
                ? [...history]
                : script.system !== null
                    ? [{ role: "system", content: script.system }]
                    : [];
    }
    /** The messages of turn `turn`'s request (the new message appended to the conversation). */
    ask(turn) {
        const content = this.script.turns[turn].content;
        if (this.script.context === "as-given") {
            this.history.length = 0;
            if (this.script.system !== null)
                this.history.push({ role: "system", content: this.script.system });
        }
        this.history.push({ role: "user", content });
        return [...this.history];
    }
    /** The server's answer (its text, and its tool calls when it called tools). */
    answer(text, toolCalls = []) {
        const message = { role: "assistant", content: text };
        if (toolCalls.length > 0)
            message.tool_calls = toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
            }));
        this.history.push(message);
    }
    /**
     * Branch `branch` of fan-out turn `turn`: a conversation of its own that starts as the conversation so
     * far, the turn's message and the branch's message (what its first request sends, `messages`); its tool
     * rounds go on in it, apart from the session's.
     */
    branch(turn, branch) {
        const planned = this.script.turns[turn];
        const own = planned.fanOut.branches[branch];
        const conversation = new Conversation(this.script, [
            ...this.history,
            { role: "user", content: planned.content },
            { role: "user", content: own.content },
        ]);
        return { conversation, messages: [...conversation.history] };
    }
    /**
     * A fan-out turn joined: the conversation goes on with the turn's message and, as the answer the next
     * turn reads, the branches' answers in branch order (the sub-agents' results).
     */
    join(turn, answers) {
        this.history.push({ role: "user", content: this.script.turns[turn].content });
        this.history.push({ role: "assistant", content: answers.join("\n\n") });
    }
    /** The mocked tool results answering the last tool calls; returns the next request's messages. */
    toolResults(results) {
        for (const result of results)
            this.history.push({ role: "tool", tool_call_id: result.id, content: result.content });
        return [...this.history];
    }
}

/** Longest answer a scorer reads: 64 KiB (the client keeps no more, client/output-capture.ts). */
const answerLimit = 64 * 1024;
/** Trimmed, whitespace runs as one space, lower case, trailing full stop dropped. */
function normalizeAnswer(text) {
    return text
        .trim()
        .replace(/\s+/g, " ")
        .toLowerCase()
        .replace(/[.!]+$/, "");
}
/** The first number in the text (an optional sign, digits with optional , thousands and a decimal part). */
function firstNumber(text) {
    const match = /[-+]?\d[\d,]*(?:\.\d+)?/.exec(text);
    if (match === null)
        return null;
    const value = Number(match[0].replaceAll(",", ""));
    return Number.isFinite(value) ? value : null;
}
class ScorerError extends Error {
    name = "ScorerError";
}
/**
 * Whether an answer is right (pure): `exact` after normalizeAnswer, `contains` the normalised reference,
 * `regex` the scorer's pattern (or the reference as one) matches, `numeric` the first number is within
 * the tolerance of the reference's. A scorer that cannot run (a bad pattern, a reference that is no
 * number) throws ScorerError naming what is wrong.
 */
function scoreAnswer(answer, reference, scorer) {
    const text = answer.length > answerLimit ? answer.slice(0, answerLimit) : answer;
    switch (scorer.kind) {
        case "exact":
            return normalizeAnswer(text) === normalizeAnswer(reference);
        case "contains":
            return normalizeAnswer(text).includes(normalizeAnswer(reference));
        case "regex": {
            let pattern;
            try {
                pattern = new RegExp(scorer.pattern || reference, "iu");
            }
            catch (error) {
                throw new ScorerError(`regex scorer: ${JSON.stringify(scorer.pattern || reference)} is not a regular expression (${error.message})`);
            }
            return pattern.test(text);
        }
        case "numeric": {
            const expected = firstNumber(reference);
            if (expected === null)
                throw new ScorerError(`numeric scorer: the reference ${JSON.stringify(reference)} has no number`);
            const got = firstNumber(text);
            return got !== null && Math.abs(got - expected) <= scorer.tolerance;
        }
    }
}

/**
 * Reads a dataset file (a ShareGPT JSON array, JSONL, a trace) of a cell's dataset. Paths are relative to
 * the config's directory. The checksum is of the bytes read; a configured sha256 that differs is an input
 * error, so a silently changed dataset is never compared against an old baseline. `seed` (the cell's)
 * draws a trace's `sample`.
 */
async function readDatasetFile(options) {
    const { dataset, field } = options;
    const path = datasetPath(dataset, options.baseDir);
    // A trace is parsed from its bytes; the other kinds from one string, which Node holds up to a size.
    const [limit, limitName] = isTraceDataset(dataset)
        ? [configLimits.traceFileBytes, "a trace file"]
        : [configLimits.datasetFileBytes, "a dataset file"];
    let bytes;
    try {
        const size = (await stat(path)).size;
        if (size > limit)
            throw new InputError(`${field}.path: dataset ${path} has ${size} bytes, more than ${limit} (the limit on ${limitName}'s size; see docs/config-reference.md#limits)`);
        bytes = await readFile(path);
    }
    catch (error) {
        if (error instanceof InputError)
            throw error;
        throw new InputError(`${field}.path: cannot read dataset ${path} (${error.code ?? error})`);
    }
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (dataset.sha256 && dataset.sha256 !== sha256) {
        throw new InputError(`${field}.sha256: dataset ${path} has sha256 ${sha256}, expected ${dataset.sha256} (the file changed)`);
    }
    const read = fileKinds[dataset.type];
    return { path, sha256, ...read({ bytes, path, field, dataset, seed: options.seed }) };
}
/** Where a dataset's file is: its path, relative to the config's directory unless absolute. */
function datasetPath(dataset, baseDir) {
    return isAbsolute(dataset.path) ? dataset.path : resolve(baseDir, dataset.path);
}
const text = (file) => file.bytes.toString("utf8");
/** Every trace kind's file, through the one trace pipeline and the layout its kind declares. */
function traceFile({ bytes, path, dataset, seed }) {
    const { sessions, summary } = readTrace(bytes, {
        path,
        layout: traceLayoutOf(dataset),
        selection: dataset,
        seed,
    });
    return {
        entries: [],
        skipped: summary.empty,
        trace: summary,
        sessions: sessions.map((session) => ({
            system: null,
            turns: session.turns.map((turn) => ({
                content: "",
                answer: null,
                maxTokens: turn.maxTokens,
                timestampMs: turn.timestampMs,
                inputTokens: turn.inputTokens,
                hashIds: turn.hashIds,
            })),
        })),
    };
}
/**
 * How each file-backed dataset kind (the `fileBacked` trait, config/dataset-kinds/) reads its file: keyed
 * by those kinds, so a new one fails to compile until it says how its file is read.
 */
const fileKinds = {
    sharegpt: (file) => promptEntries(parseJsonArray(text(file), file.path), file.path, file.field),
    jsonl: (file) => promptEntries(parseJsonLines(text(file), file.path), file.path, file.field),
    tasks_jsonl: (file) => ({ entries: parseTaskLines(text(file), file.path), skipped: 0 }),
    mooncake_trace: traceFile,
    azure_trace: traceFile,
    burstgpt_trace: traceFile,
    trace: traceFile,
    sharegpt_sessions: ({ bytes, path, field }) => {
        const text = bytes.toString("utf8");
        const conversations = parseJsonArray(text, path);
        const sessions = [];
        let skipped = 0;
        for (const item of conversations) {
            const session = toConversationSession(item);
            if (session)
                sessions.push(session);
            else
                skipped++;
        }
        if (sessions.length === 0)
            throw new InputError(`${field}.path: dataset ${path} has no usable conversations (expected "conversations" with a human turn)`);
        return { entries: [], skipped, sessions };
    },
};
/** The prompts of a ShareGPT array or JSONL lines; the items that hold none are skipped (and counted). */
function promptEntries(raw, path, field) {
    const entries = [];
    let skipped = 0;
    for (const item of raw) {
        const entry = toEntry(item);
        if (entry)
            entries.push(entry);
        else
            skipped++;
    }
    if (entries.length === 0) {
        throw new InputError(`${field}.path: dataset ${path} has no usable entries (expected "conversations" with a human turn, "prompt" or "messages")`);
    }
    return { entries, skipped };
}
function parseJsonArray(text, path) {
    let value;
    try {
        value = JSON.parse(text);
    }
    catch (error) {
        throw new InputError(`${path}: not valid JSON (${error.message}); expected a ShareGPT array`);
    }
    if (!Array.isArray(value))
        throw new InputError(`${path}: expected a JSON array of conversations, got ${typeof value}`);
    return value;
}
function parseJsonLines(text, path) {
    const items = [];
    text.split(/\r?\n/).forEach((line, index) => {
        if (line.trim() === "")
            return;
        try {
            items.push(JSON.parse(line));
        }
        catch (error) {
            throw new InputError(`${path}:${index + 1}: not valid JSON (${error.message})`);
        }
    });
    return items;
}
function toEntry(item) {
    if (!item || typeof item !== "object")
        return null;
    const record = item;
    const maxTokens = positiveInteger(record.max_tokens ?? record.output_tokens ?? record.output_len);
    if (typeof record.prompt === "string" && record.prompt.length > 0) {
        return { prompt: record.prompt, messages: null, maxTokens, answer: null };
    }
    if (Array.isArray(record.messages)) {
        const messages = record.messages.flatMap((message) => {
            const value = message;
            return typeof value?.role === "string" && typeof value.content === "string"
                ? [{ role: value.role, content: value.content }]
                : [];
        });
        if (messages.length > 0)
            return { prompt: null, messages, maxTokens, answer: null };
    }
    const conversation = record.conversations ?? record.conversation;
    if (Array.isArray(conversation)) {
        const turns = conversation.map((turn) => {
            const value = turn;
            return {
                from: String(value?.from ?? value?.role ?? ""),
                text: String(value?.value ?? value?.content ?? ""),
            };
        });
        const question = turns.findIndex((turn) => turn.from === "human" || turn.from === "user");
        if (question < 0 || turns[question].text.length === 0)
            return null;
        const reply = turns[question + 1];
        return {
            prompt: turns[question].text,
            messages: null,
            maxTokens,
            answer: reply && (reply.from === "gpt" || reply.from === "assistant") ? reply.text : null,
        };
    }
    return null;
}
/**
 * A ShareGPT conversation as a session: every human (user) turn is a turn, the reply after it its answer
 * (for an answer length), a leading system turn the system prompt; turns beyond the limit on turns per
 * session (configLimits.sessionTurns) are not used.
 */
function toConversationSession(item) {
    if (!item || typeof item !== "object")
        return null;
    const record = item;
    const conversation = record.conversations ?? record.conversation ?? record.messages;
    if (!Array.isArray(conversation))
        return null;
    const parts = conversation.map((turn) => {
        const value = turn;
        return {
            from: String(value?.from ?? value?.role ?? ""),
            text: String(value?.value ?? value?.content ?? ""),
        };
    });
    const system = parts[0]?.from === "system" && parts[0].text.length > 0 ? parts[0].text : null;
    const turns = [];
    parts.forEach((part, index) => {
        if ((part.from !== "human" && part.from !== "user") || part.text.length === 0)
            return;
        const reply = parts[index + 1];
        const answer = reply && (reply.from === "gpt" || reply.from === "assistant") ? reply.text : null;
        turns.push({ content: part.text, answer, maxTokens: null });
    });
    if (turns.length === 0)
        return null;
    return { system, turns: turns.slice(0, configLimits.sessionTurns) };
}
function positiveInteger(value) {
    return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}
const scorerKinds = ["exact", "contains", "regex", "numeric"];
/**
 * A tasks_jsonl file (docs/quality.md): every non-empty line one task, checked before anything is
 * measured. A line without a prompt or a reference, with an unknown scorer, a pattern that is no regular
 * expression or a numeric reference without a number is an input error naming the file, the line and the
 * field.
 */
function parseTaskLines(text, path) {
    const entries = [];
    text.split(/\r?\n/).forEach((line, index) => {
        if (line.trim() === "")
            return;
        const where = `${path}:${index + 1}`;
        let value;
        try {
            value = JSON.parse(line);
        }
        catch (error) {
            throw new InputError(`${where}: not valid JSON (${error.message})`);
        }
        const entry = toEntry(value);
        if (entry === null)
            throw new InputError(`${where}: expected a task with "prompt" (a non-empty string) or "messages"`);
        const record = value;
        const reference = typeof record.reference === "string" || typeof record.reference === "number"
            ? String(record.reference)
            : null;
        if (reference === null || reference === "")
            throw new InputError(`${where}.reference: expected the reference answer (a string or a number), got ${JSON.stringify(record.reference ?? null)}`);
        const kind = record.scorer ?? "exact";
        if (!scorerKinds.includes(kind))
            throw new InputError(`${where}.scorer: expected one of ${scorerKinds.join(", ")}, got ${JSON.stringify(kind)}`);
        const tolerance = record.tolerance ?? 0;
        if (typeof tolerance !== "number" || !(tolerance >= 0))
            throw new InputError(`${where}.tolerance: expected a number >= 0, got ${JSON.stringify(tolerance)}`);
        const scorer = kind === "regex"
            ? { kind: "regex", pattern: typeof record.pattern === "string" ? record.pattern : "" }
            : kind === "numeric"
                ? { kind: "numeric", tolerance }
                : { kind: kind };
        try {
            // A scorer that would throw on every answer is caught here, before the run.
            scoreAnswer("", reference, scorer);
        }
        catch (error) {
            if (error instanceof ScorerError)
                throw new InputError(`${where}: ${error.message}`);
            throw error;
        }
        entries.push({ ...entry, task: { reference, scorer } });
    });
    if (entries.length === 0)
        throw new InputError(`${path}: no tasks (expected one JSON object a line)`);
    return entries;
}

/** Arrivals a duration-bound trace replay plans at most (the limit on measured requests per run). */
const maxTraceArrivals = configLimits.requestsPerRun;
/**
 * One run's replay of a trace cell (config's TraceReplay): the sessions its size takes, on the trace's
 * own clock times time_scale, the ones before the run's duration when it is sized by time. null for a
 * cell that is not a trace or whose file holds no sessions.
 */
function traceReplay(cell, file) {
    const dataset = cell.dataset;
    const sessions = file?.sessions;
    if (!isTraceDataset(dataset) || !sessions || sessions.length === 0)
        return null;
    const count = "requests" in cell.size ? cell.size.requests : maxTraceArrivals;
    const durationMs = "duration_s" in cell.size ? cell.size.duration_s * 1000 : Number.POSITIVE_INFINITY;
    const offsets = traceArrivals(sessions, count)
        .map((offset) => offset * dataset.time_scale)
        .filter((offset) => offset < durationMs);
    let requests = 0;
    let outputTokens = 0;
    let lastRequestMs = 0;
    offsets.forEach((offset, index) => {
        const turns = sessions[index % sessions.length].turns;
        const start = turns[0].timestampMs ?? 0;
        for (const turn of turns) {
            requests++;
            outputTokens += turn.maxTokens ?? 0;
            lastRequestMs = Math.max(lastRequestMs, offset + ((turn.timestampMs ?? start) - start) * dataset.time_scale);
        }
    });
    return {
        sessions: offsets.length,
        requests,
        spanS: (offsets.at(-1) ?? 0) / 1000,
        lastRequestS: lastRequestMs / 1000,
        outputTokensMean: requests > 0 ? outputTokens / requests : 0,
    };
}

export { Conversation as C, ScorerError as S, describeTraceRead as a, randomWords as b, defaultTokenModel as c, datasetPath as d, shuffledIndexes as e, fileSessions as f, sessionFanOuts as g, fileSessionScript as h, drawLength as i, sessionDraws as j, wordsForPart as k, sessionToolDefinitions as l, traceArrivals as m, maxTraceArrivals as n, scoreAnswer as o, maxToolRoundsPerTurn as p, readDatasetFile as r, selectCells as s, traceReplay as t, wordsForPrompt as w };
