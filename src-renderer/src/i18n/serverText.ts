// The server's error texts in the console's language. The API answers in English, as the
// platform does (scripts match those texts); the console shows the known ones in Russian, with
// the names they quote (fields, values, operators) left as they are. A text it does not know is
// shown as the server wrote it.

type Rule = [RegExp, (m: RegExpExecArray) => string];

const RU_EXACT: Readonly<Record<string, string>> = {
  'Bad Request': 'неверный запрос',
  'no auth header': 'нет заголовка с ключом API',
  'invalid credentials': 'неверный ключ API',
  'invalid api key': 'неверный ключ API',
  'invalid authorization header': 'неверный заголовок Authorization',
  'invalid token': 'неверный токен',
  'not found': 'не найдено',
  'Not Found': 'не найдено',
  'Internal Server Error': 'внутренняя ошибка сервера',
  'id is empty': 'id не указан',
  'id should be uuid format': 'id должен быть в формате UUID',
  'empty ips': 'не указаны IP-адреса',
  'empty IP address': 'пустой IP-адрес',
  'missing uid header': 'нет заголовка с id пользователя',
  'Pgr-User-Id should be uuid format': 'Pgr-User-Id должен быть в формате UUID',
  'empty rule_id': 'не указан rule_id',
  'rule_id should be uuid format': 'rule_id должен быть в формате UUID',
  'empty integration_script_id': 'не указан integration_script_id',
  'integration_script_id should be uuid format': 'integration_script_id должен быть в формате UUID',
  'rule not found': 'правило не найдено',
  'integration script not found': 'скрипт интеграции не найден',
  'invalid query': 'недопустимый запрос',
  'name should not be empty': 'имя не должно быть пустым',
  'exceeded maximum length for a value': 'превышена наибольшая длина значения',
  'missing model id': 'не указан id модели',
  'invalid model id: incorrect uuid': 'недопустимый id модели: неверный UUID',
  name_already_used: 'имя уже занято',
  'group_field should not be empty': 'group_field не должно быть пустым',
  'invalid field': 'недопустимое поле',
  'related data exists': 'есть связанные данные',
  'forbidden host': 'запрещённый адрес',
  'the database is busy (an import is writing to it); try again shortly': 'база данных занята (в неё пишет импорт); повторите чуть позже',
  'request body is too large': 'тело запроса слишком велико',
  'invalid JSON body': 'тело запроса — не JSON',
  'invalid JSON body: it is empty': 'тело запроса пустое',
  'unsupported content type': 'неподдерживаемый тип содержимого',
  'empty field name': 'пустое имя поля',
  'resource should not be empty': 'ресурс не указан',
  'Invalid input': 'недопустимое значение',
  // Why a push sent a record without the status change it names (its notes).
  'the platform made no row for that change': 'платформа не создала записи для этой смены статуса',
  'the platform already had that status: it made no row for it': 'на платформе уже был этот статус: записи о смене она не создала',
  'the change it names was changed again before the push; the platform has only the last one':
    'эту смену статуса изменили ещё раз до отправки; на платформе есть только последняя',
  'no new row of the platform was found for that change': 'новой записи платформы для этой смены статуса не найдено',
  'waits for the change it names to be pushed': 'ждёт отправки изменения, на которое ссылается',
};

const RU_RULES: readonly Rule[] = [
  [/^unknown field: (.+)$/, (m) => `неизвестное поле: ${m[1]}`],
  [/^unknown ordering field: (.+)$/, (m) => `неизвестное поле сортировки: ${m[1]}`],
  [/^unknown fields: (.+)$/, (m) => `неизвестные поля: ${m[1]}`],
  [/^unknown relation: (.+)$/, (m) => `неизвестная связь: ${m[1]}`],
  [/^unknown resource: (.+)$/, (m) => `неизвестный ресурс: ${m[1]}`],
  [/^unknown column: (.+)$/, (m) => `неизвестный столбец: ${m[1]}`],
  [/^unknown entity: (.+)$/, (m) => `неизвестная сущность: ${m[1]}`],
  [/^unknown operator "(.*)" for field (\S+)$/, (m) => `неизвестный оператор «${m[1]}» для поля ${m[2]}`],
  [/^operator (\S+) takes no value \(field (\S+)\)$/, (m) => `оператор ${m[1]} не принимает значения (поле ${m[2]})`],
  [/^operator (\S+) needs a value \(field (\S+)\)$/, (m) => `оператору ${m[1]} нужно значение (поле ${m[2]})`],
  [/^operator (\S+) is not supported for field (\S+)$/, (m) => `оператор ${m[1]} не поддерживается для поля ${m[2]}`],
  [/^operator like needs a text field: (.+)$/, (m) => `оператору like нужно текстовое поле: ${m[1]}`],
  [/^filter_type (\S+) is not supported for field (\S+)$/, (m) => `тип фильтра ${m[1]} не поддерживается для поля ${m[2]}`],
  [/^field (\S+) cannot be used for ordering$/, (m) => `по полю ${m[1]} нельзя сортировать`],
  [/^field (\S+) cannot be filtered$/, (m) => `по полю ${m[1]} нельзя фильтровать`],
  [/^order by a nested field is not supported: (.+)$/, (m) => `сортировка по полю связанной сущности не поддерживается: ${m[1]}`],
  [/^invalid order "(.*)": use -field or field desc$/, (m) => `недопустимый порядок «${m[1]}»: пишите -field или field desc`],
  [/^invalid order "(.*)"$/, (m) => `недопустимый порядок «${m[1]}»`],
  [/^invalid value "(.*)" for (\S+): expected one of (.+)$/, (m) => `недопустимое значение «${m[1]}» для ${m[2]}: ожидается одно из ${m[3]}`],
  [/^invalid value for (\S+): expected uuid strings$/, (m) => `недопустимое значение для ${m[1]}: для связи нужны uuid`],
  [/^invalid value for (\S+): range takes \[from, to\]$/, (m) => `недопустимое значение для ${m[1]}: range принимает [от, до]`],
  [/^invalid value for (\S+): range needs a lower or an upper bound$/, (m) => `недопустимое значение для ${m[1]}: у range нужна нижняя или верхняя граница`],
  [/^invalid value for (\S+): intersection takes an array$/, (m) => `недопустимое значение для ${m[1]}: intersection принимает массив`],
  [/^invalid value for (\S+): equal takes a string or a number$/, (m) => `недопустимое значение для ${m[1]}: equal принимает строку или число`],
  [/^invalid value for (\S+): substr takes a string$/, (m) => `недопустимое значение для ${m[1]}: substr принимает строку`],
  [/^invalid value for (\S+): expected (.+)$/, (m) => `недопустимое значение для ${m[1]}: ожидается ${m[2]}`],
  [/^incorrect relation identifiers for (.+)$/, (m) => `неверные идентификаторы связи ${m[1]}`],
  [/^(\S+) must be a positive integer$/, (m) => `${m[1]} должно быть положительным целым числом`],
  [/^(\S+) must be at least (\d+)$/, (m) => `${m[1]} должно быть не меньше ${m[2]}`],
  [/^page must be at most (\d+) with per_page (\d+)$/, (m) => `page должно быть не больше ${m[1]} при per_page ${m[2]}`],
  [/^(\S+) must be at most (\d+)$/, (m) => `${m[1]} должно быть не больше ${m[2]}`],
  [/^(\S+) is required$/, (m) => `нужно указать ${m[1]}`],
  [/^(\S+) should be a string$/, (m) => `${m[1]} должно быть строкой`],
  [/^no instance (.+)$/, (m) => `нет инсталляции ${m[1]}`],
  [/^the query matches (\d+) incidents now, not (\d+): nothing was changed$/, (m) => `запросу теперь соответствует инцидентов: ${m[1]}, а не ${m[2]}; ничего не изменено`],
  [/^cancelled: nothing was changed$/, () => 'прервано: ничего не изменено'],
  [/^incident (\S+) could not be written \(code (\d+)\): nothing was changed$/, (m) => `инцидент ${m[1]} не удалось записать (код ${m[2]}): ничего не изменено`],
  [/^(\S+ \S+): sent without (\S+) \((.+)\)$/, (m) => `${m[1]}: отправлено без ${m[2]} (${ru(m[3]!) ?? m[3]})`],
  [/^(\S+ \S+): waits for the (\S+) change of (\S+) (\S+) to be pushed$/, (m) => `${m[1]}: ждёт отправки изменения ${m[2]} у ${m[3]} ${m[4]}`],
];

function ru(text: string, depth = 0): string | null {
  const exact = RU_EXACT[text];
  if (exact) return exact;
  for (const [re, to] of RU_RULES) {
    const m = re.exec(text);
    if (m) return to(m);
  }
  // `where: what` (a path in the request, then the text): the text is translated, the path kept.
  const p = /^([\w.[\]-]+): (.+)$/.exec(text);
  if (p && depth < 2) {
    const rest = ru(p[2]!, depth + 1);
    if (rest) return `${p[1]}: ${rest}`;
  }
  return null;
}

/** An error text of the server (or of the shared query parsers) in the given language. */
export function serverText(lang: string, text: string): string {
  if (!lang.startsWith('ru')) return text;
  return ru(text) ?? text;
}
