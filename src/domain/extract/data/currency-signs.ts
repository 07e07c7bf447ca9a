// Currency signs as they are written on pages, with the ISO 4217 codes each
// may stand for. ISO codes themselves ("EUR", "usd") are recognised from the
// ISO table and need no entry here.
//
// `codes` lists every current currency the sign is commonly used for, so that
// a sign only counts against a target's currency when it cannot mean it ("€"
// for a USD target), never when it merely might ("$" for an AUD target). An
// empty list marks signs of currencies without an ISO code of their own (the
// toman, bitcoin, historic currencies): recognised, so they are not mistaken
// for a number's neighbour, but never a match for any target.
//
// `fold`: matched case-insensitively. `prefix`: may be the start of a longer
// word ("руб" in "рублей"). `near`: a short or ambiguous sign that counts only
// right next to a number (or as the whole text), because as a free-standing
// word it is too often something else ("Br", "đ", "Р").

export interface CurrencySign {
  readonly sign: string;
  readonly codes: readonly string[];
  readonly fold?: boolean;
  readonly prefix?: boolean;
  readonly near?: boolean;
}

const DOLLARS = [
  'USD', 'AUD', 'CAD', 'NZD', 'SGD', 'HKD', 'TWD', 'MXN', 'ARS', 'CLP', 'COP', 'CUP', 'DOP', 'UYU', 'BSD', 'BBD',
  'BZD', 'BMD', 'BND', 'FJD', 'GYD', 'JMD', 'KYD', 'LRD', 'NAD', 'SBD', 'SRD', 'TTD', 'XCD', 'ZWG', 'TOP', 'WST',
  'NIO', 'MOP', 'SVC',
];

const POUNDS = ['GBP', 'EGP', 'GIP', 'FKP', 'SHP', 'SYP', 'LBP', 'SDG', 'SSP'];
const RUBLES = ['RUB', 'BYN'];
const RUPEES = ['INR', 'PKR', 'LKR', 'NPR', 'MUR', 'SCR', 'IDR'];
const RIALS = ['SAR', 'QAR', 'OMR', 'YER', 'IRR'];
const DINARS = ['RSD', 'MKD', 'DZD', 'TND', 'LYD', 'JOD', 'KWD', 'BHD', 'IQD'];
const KRONER = ['SEK', 'NOK', 'DKK', 'ISK'];
const FRANCS = ['CHF', 'XOF', 'XAF', 'XPF', 'CDF', 'GNF', 'RWF', 'BIF', 'DJF', 'KMF', 'MGA'];

export const CURRENCY_SIGNS: readonly CurrencySign[] = [
  { sign: '$', codes: DOLLARS },
  { sign: 'US$', codes: ['USD'] },
  { sign: 'U$S', codes: ['USD'] },
  { sign: 'A$', codes: ['AUD'] },
  { sign: 'AU$', codes: ['AUD'] },
  { sign: 'C$', codes: ['CAD', 'NIO'] },
  { sign: 'CA$', codes: ['CAD'] },
  { sign: 'CAN$', codes: ['CAD'] },
  { sign: 'NZ$', codes: ['NZD'] },
  { sign: 'HK$', codes: ['HKD'] },
  { sign: 'S$', codes: ['SGD'] },
  { sign: 'NT$', codes: ['TWD'] },
  { sign: 'MX$', codes: ['MXN'] },
  { sign: 'R$', codes: ['BRL'] },
  { sign: 'RD$', codes: ['DOP'] },
  { sign: 'J$', codes: ['JMD'] },
  { sign: 'BZ$', codes: ['BZD'] },
  { sign: 'TT$', codes: ['TTD'] },
  { sign: 'T$', codes: ['TOP'] },
  { sign: 'Z$', codes: ['ZWG'] },
  { sign: 'CUC$', codes: ['CUC'] },
  { sign: 'MOP$', codes: ['MOP'] },
  { sign: '$U', codes: ['UYU'] },
  { sign: '€', codes: ['EUR'] },
  { sign: 'euro', codes: ['EUR'], fold: true },
  { sign: 'euros', codes: ['EUR'], fold: true },
  { sign: '£', codes: POUNDS },
  { sign: '₤', codes: POUNDS },
  { sign: '¥', codes: ['JPY', 'CNY'] },
  { sign: '円', codes: ['JPY'], near: true },
  { sign: '元', codes: ['CNY'], near: true },
  { sign: '₩', codes: ['KRW', 'KPW'] },
  { sign: '원', codes: ['KRW'], near: true },
  { sign: '₹', codes: ['INR'] },
  { sign: 'र', codes: ['INR', 'NPR'], near: true },
  { sign: '₨', codes: RUPEES },
  { sign: 'Rs', codes: RUPEES, near: true },
  { sign: 'Rs.', codes: RUPEES, near: true },
  { sign: 'Rp', codes: ['IDR'], near: true },
  { sign: 'RM', codes: ['MYR'], near: true },
  { sign: '₱', codes: ['PHP', 'CUP'] },
  { sign: '₫', codes: ['VND'] },
  { sign: 'đ', codes: ['VND'], near: true },
  { sign: '₭', codes: ['LAK'] },
  { sign: '₮', codes: ['MNT'] },
  { sign: '฿', codes: ['THB'] },
  { sign: '៛', codes: ['KHR'] },
  { sign: '৳', codes: ['BDT'] },
  { sign: '₪', codes: ['ILS'] },
  { sign: 'ש"ח', codes: ['ILS'] },
  { sign: 'ש״ח', codes: ['ILS'] },
  { sign: '₺', codes: ['TRY'] },
  { sign: 'TL', codes: ['TRY'], near: true },
  { sign: '₴', codes: ['UAH'] },
  { sign: 'грн', codes: ['UAH'], fold: true, prefix: true },
  { sign: 'грн.', codes: ['UAH'], fold: true },
  { sign: '₽', codes: ['RUB'] },
  { sign: 'руб', codes: RUBLES, fold: true, prefix: true },
  { sign: 'руб.', codes: RUBLES, fold: true },
  { sign: 'р.', codes: RUBLES, near: true },
  { sign: 'Р', codes: ['RUB'], near: true },
  { sign: 'лв', codes: ['BGN'], fold: true, near: true },
  { sign: 'лв.', codes: ['BGN'], fold: true, near: true },
  { sign: 'ден', codes: ['MKD'], near: true },
  { sign: 'дин', codes: ['RSD'], near: true, prefix: true },
  { sign: '₸', codes: ['KZT'] },
  { sign: '₾', codes: ['GEL'] },
  { sign: '₼', codes: ['AZN'] },
  { sign: '֏', codes: ['AMD'] },
  { sign: '؋', codes: ['AFN'] },
  { sign: '₦', codes: ['NGN'] },
  { sign: '₵', codes: ['GHS'] },
  { sign: 'GH₵', codes: ['GHS'] },
  { sign: '₡', codes: ['CRC', 'SVC'] },
  { sign: '₲', codes: ['PYG'] },
  { sign: '₣', codes: FRANCS },
  { sign: 'Fr.', codes: ['CHF'], near: true },
  { sign: 'Fr', codes: ['CHF'], near: true },
  { sign: 'CFA', codes: ['XOF', 'XAF'], near: true },
  { sign: 'FCFA', codes: ['XOF', 'XAF'], near: true },
  { sign: 'FBu', codes: ['BIF'], near: true },
  { sign: 'Fdj', codes: ['DJF'], near: true },
  { sign: 'FG', codes: ['GNF'], near: true },
  { sign: 'zł', codes: ['PLN'], fold: true },
  { sign: 'Kč', codes: ['CZK'], fold: true },
  { sign: 'Kc', codes: ['CZK'], near: true },
  { sign: 'Ft', codes: ['HUF'], near: true },
  { sign: 'kr', codes: KRONER, fold: true, near: true },
  { sign: 'kr.', codes: KRONER, fold: true, near: true },
  { sign: 'kn', codes: [], near: true },
  { sign: 'lei', codes: ['RON', 'MDL'], fold: true, near: true },
  { sign: 'Lek', codes: ['ALL'], near: true },
  { sign: 'KM', codes: ['BAM'], near: true },
  { sign: 'Br', codes: ['BYN', 'ETB'], near: true },
  { sign: 'Bs', codes: ['VES', 'BOB'], near: true },
  { sign: 'Bs.', codes: ['VES', 'BOB'], near: true },
  { sign: 'B/.', codes: ['PAB'], near: true },
  { sign: 'S/.', codes: ['PEN'], near: true },
  { sign: 'S/', codes: ['PEN'], near: true },
  { sign: 'Nu.', codes: ['BTN'], near: true },
  { sign: 'Db', codes: ['STN'], near: true },
  { sign: 'Rf', codes: ['MVR'], near: true },
  { sign: 'UM', codes: ['MRU'], near: true },
  { sign: 'MK', codes: ['MWK'], near: true },
  { sign: 'Nfk', codes: ['ERN'], near: true },
  { sign: 'TSh', codes: ['TZS'], near: true },
  { sign: 'USh', codes: ['UGX'], near: true },
  { sign: 'KSh', codes: ['KES'], near: true },
  { sign: 'VT', codes: ['VUV'], near: true },
  { sign: 'ZK', codes: ['ZMW'], near: true },
  { sign: 'BD', codes: ['BHD'], near: true },
  { sign: 'KD', codes: ['KWD'], near: true },
  { sign: 'LD', codes: ['LYD', 'LRD'], near: true },
  { sign: 'DT', codes: ['TND'], near: true },
  { sign: 'ƒ', codes: ['ANG', 'AWG', 'XCG'] },
  { sign: '﷼', codes: RIALS },
  { sign: 'ريال', codes: RIALS },
  { sign: 'ریال', codes: ['IRR'] },
  { sign: 'تومان', codes: [] },
  { sign: 'جنيه', codes: ['EGP', 'SDG'] },
  { sign: 'E£', codes: ['EGP'] },
  { sign: 'ج.م', codes: ['EGP'] },
  { sign: 'ر.س', codes: ['SAR'] },
  { sign: 'ر.ق', codes: ['QAR'] },
  { sign: 'ر.ع', codes: ['OMR'] },
  { sign: 'د.إ', codes: ['AED'] },
  { sign: 'د.ك', codes: ['KWD'] },
  { sign: 'د.ب', codes: ['BHD'] },
  { sign: 'د.ت', codes: ['TND'] },
  { sign: 'د.ج', codes: ['DZD'] },
  { sign: 'د.م', codes: ['MAD'] },
  { sign: 'د.أ', codes: ['JOD'] },
  { sign: 'ع.د', codes: ['IQD'] },
  { sign: 'ل.د', codes: ['LYD'] },
  { sign: 'ل.س', codes: ['SYP'] },
  { sign: 'ل.ل', codes: ['LBP'] },
  { sign: 'บาท', codes: ['THB'] },
  { sign: 'درهم', codes: ['AED', 'MAD'] },
  { sign: 'دينار', codes: DINARS },
  { sign: 'dinar', codes: DINARS, fold: true, near: true },
  { sign: 'dinara', codes: ['RSD'], fold: true, near: true },
  { sign: 'dinars', codes: DINARS, fold: true, near: true },
  { sign: '₿', codes: [] },
  { sign: '₶', codes: [] },
];

// Withdrawn ISO codes still seen on old pages and in archives: recognised as
// currencies so their amounts are never read as the target's.
export const HISTORIC_CODES: readonly string[] = [
  'ATS', 'BEF', 'BYR', 'CYP', 'DEM', 'EEK', 'ESP', 'FIM', 'FRF', 'GRD', 'HRK', 'IEP', 'ITL', 'LTL', 'LUF', 'LVL',
  'MRO', 'MTL', 'NLG', 'PTE', 'SIT', 'SKK', 'SLL', 'STD', 'VEF', 'ZWL',
];
