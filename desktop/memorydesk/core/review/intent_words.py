"""The words ``core.review.intent`` reads a planted instruction by, in the languages memory is
written in (en, de, fr, es, pt, it, nl, pl, ru, he, zh, ja): who is addressed, what is asked,
what it is asked about, where things are to go, and the markers of secrecy, haste and
borrowed authority.

Each entry is a regular-expression fragment; a group is one alternation. They name kinds
of words — the verbs of sending, the safeguards a team keeps, the places outside it —
not sentences, so that an instruction in words nobody wrote down before still meets them.
Written for Memory Desk by its authors (Apache-2.0).
"""

from __future__ import annotations

# who is addressed: the model, agent, assistant or bot that will read the text
AGENT = (r"(?:ai|a\.i\.|llm|language\s+models?|assistants?|agents?|bots?|models?|copilots?|chatbots?|summari[sz]ers?"
         r"|assistent(?:en|in)?|agent(?:en)?|ki|sprachmodell|assistante?|ia|asistente|assistente|"
         r"asystent\w*|ассистент\w*|агент\w*|бот\w*|ии|нейросет\w*|עוזר|לעוזר|סוכן|לסוכן|בוט|"
         r"助手|智能体|代理|机器人|人工智能|アシスタント|エージェント|ボット)")

# the reader called by name at the head of a line or a sentence: "Assistant: …", "Note for the agent: …",
# "Hey Copilot, …" — what agents are told all day, so it counts only beside an act it asks for
VOCATIVE = (
    rf"(?:^|[\n.!?>(\[—–-]\s*|<!--\s*)(?:(?:dear|hey|hi|attention|note\s+(?:to|for)|message\s+(?:to|for)|"
    rf"payload\s+for|instructions?\s+for|an\s+(?:den|die)|für\s+(?:den|die)|à\s+l'|pour\s+l'|para\s+(?:el|o|a)|"
    rf"al|all'|aan\s+de|do|для|внимание,?|מסר|הודעה|הוראה|给|致|致各位)\s+)?(?:the\s+|any\s+|all\s+|every\s+)?"
    rf"(?:automated\s+|autonomous\s+)?{AGENT}\s*(?:[:：—]|,\s)",
    rf"(?:^|[\n.!?>]\s*|<!--\s*)[^\n:：]{{0,40}}?\b(?:to|for|an|für|pour|à|para|per|voor|dla|для)\s+(?:the\s+|den\s+|"
    # the reader is who the label is for when the label ends at it, or goes on only to say which one
    # ("… for the AI agent reading this memory:"); "key for the summariser spike:" names a project
    rf"die\s+|l'|la\s+|le\s+|el\s+|la\s+|o\s+|a\s+|il\s+|de\s+|het\s+|all'|al\s+)?(?:\w+\s+)?{AGENT}\b"
    rf"(?:\s+(?:reading|processing|handling|seeing|that|which|who|running|working|in\s+charge)\b[^\n:：]{{0,40}}?)?"
    rf"\s?[:：]",
)

ADDRESS = (
    r"\bif\s+you(?:'re|\s+are)\s+(?:an?\s+)?(?:ai|llm|language\s+model|assistant|agent|bot|model|automated)\b",
    r"\b(?:whoever|whichever|whatever)\s+(?:\w+\s+){0,2}(?:reads?|processes|processing|handles?|picks?\s+up|"
    r"summari[sz]es?|sees?)\s+(?:this|it)\b",
    # (the last word behind a lookahead, so that the gate waits for the agent's name, not for any word in "th")
    rf"\b{AGENT}\s+(?:that|which|who)\s+(?:reads?|process(?:es)?|sees?|summari[sz]es?|handles?)\s+"
    r"(?=this\b|these\b)\w+",
    rf"\b(?:to|for)\s+(?:any|every|the|all|whichever)\s+(?:\w+\s+)?{AGENT}\s+(?:reading|processing|that\s+reads?|"
    rf"who\s+reads?|handling|seeing)\b",
    r"\b(?:automated|ai)\s+(?:reviewers?|systems?|agents?|assistants?|readers?)\b\s*[:,]",
    r"\b(?:reviewer|review|triage|merge|release|support)[- ]?bots?\s*[:—–,-]",
    r"\bfalls\s+du\s+(?:eine\s+)?(?:ki|ein\s+(?:bot|sprachmodell|assistent))\b|\bsi\s+(?:tu\s+es|eres|você\s+é|sei)\s+"
    r"(?:une?\s+|un\s+|uma?\s+|un'\s*)?(?:ia|ki|ai|bot|assistant|asistente|assistente|modèle|modelo)\b",
    r"если\s+ты\s+(?:ии|бот|ассистент|модель|агент)|אם\s+אתה\s+(?:בינה|מודל|בוט|עוזר|סוכן)|如果你是|もしあなたが",
    r"(?:致|给)(?:所有)?(?:AI|助手|智能体|机器人)|AIへ|AIに告ぐ|アシスタントへ|エージェントへ",
)

# the instructions it was given, set aside
OVERRIDE = (
    r"\b(?:your|the\s+assistant's|the\s+agent's|the)\s+(?:real|actual|true|updated|new)\s+(?:instructions|rules|"
    r"task|prompt|orders)\s+(?:are|is|can\s+be\s+found|live)\b|\bfollow\s+(?:them|these|those|it|this)\s+instead\b",
    r"\b(?:ignore|disregard|forget|override|bypass|drop|discard|set\s+aside|skip|abandon)\s+(?:\w+\s+){0,4}?"
    r"(?:instructions?|rules?|guidance|guidelines?|directions?|prompts?|polic(?:y|ies)|checklists?|constraints?|"
    r"restrictions?|guardrails?|safety\s+\w+|context|limits?|caps?|training|programming|configuration)\b",
    r"\b(?:instructions?|rules?|guidance|guidelines?|polic(?:y|ies)|checklists?|constraints?|restrictions?|limits?|"
    r"caps?|"
    r"safety\s+\w+|system\s+prompt|guardrails?|sign-?offs?|reviews?|approvals?|checks?|"
    r"verification)\s*\)?\s+(?:\w+\s+){0,5}?"
    r"(?:(?:is|are|were|has\s+been|have\s+been)\s+)?"
    r"(?:void|null|lifted|suspended|revoked|cancel(?:l)?ed|obsolete|outdated|overridden|superseded|disabled|waived|"
    r"no\s+longer\s+appl(?:y|ies)|(?:does|do)\s+not\s+apply|"
    r"(?:to\s+be|must\s+be|should\s+be)\s+(?:ignored|disregarded)|"
    r"no\s+longer\s+(?:valid|appl(?:y|ies)|in\s+force|relevant|binding))\b",
    r"\b(?:your|the)\s+(?:\w+\s+)?(?:polic(?:y|ies)|instructions|rules|preamble|system\s+prompt|guidelines)[^\n]{0,80}"
    r"\b(?:ignore|disregard)\s+(?:them|it|those|these)\b|"
    r"\b(?:stop|quit)\s+(?:following|obeying|applying)\b|\bno\s+longer\s+(?:follow|obey)\b|"
    r"\b(?:guardrails?|rules?|polic(?:y|ies)|instructions?|limits?|restrictions?|filters?|checks?)\s+(?:do\s+not|don't|"
    r"no\s+longer)\s+apply\b|\bno\s+longer\s+appl(?:y|ies)\s+to\s+(?:you|me|this|us)\b|"
    r"\bdo(?:es)?\s+not\s+apply\s+to\s+(?:you|this\s+(?:request|"
    r"ticket|session|pr|account))\b",
    r"\b(?:ignorier\w*|vergiss|missacht\w*|übergeh\w*)\b[^.\n]{0,50}\b(?:anweisung\w*|regeln|richtlinie\w*|vorgaben|"
    r"vorschriften|prüfliste|kontext)\b|\b\w*(?:anweisungen|regeln|richtlinien|"
    r"vorgaben)\b[^.\n]{0,40}\b(?:gelten\s+nicht\s+mehr|"
    r"sind\s+(?:aufgehoben|ungültig|außer\s+kraft|hinfällig))",
    r"\b(?:ignore|oublie|ne\s+tiens\s+pas\s+compte\s+d)\w*\b[^.\n]{0,50}\b(?:instructions|consignes|règles|directives|"
    r"politiques|contexte)\b|\b(?:instructions|consignes|règles)\b[^.\n]{0,40}\b(?:sont|est)\s+(?:annulée?s?|caduques?|"
    r"suspendue?s?|levée?s?)\b",
    r"\b(?:ignora|olvida|omite|descarta|ignore|esqueça|desconsidere|dimentica|"
    r"trascura)\w*\b[^.\n]{0,50}\b(?:instrucciones|"
    r"instruções|instruzioni|reglas|regras|regole|directrices|diretrizes|políticas|politiche|indicaciones|contexto|"
    r"contesto)\b",
    r"\b(?:negeer|vergeet)\b[^.\n]{0,40}\b\w*(?:instructies|regels|richtlijnen)\b|\b(?:zignoruj|zapomnij|"
    r"pomiń)\b[^.\n]{0,40}"
    r"\b(?:instrukcj\w*|zasad\w*|reguł\w*|polecen\w*)",
    r"(?:игнорир\w*|проигнорир\w*|забудь|забыть|не\s+обращай\s+внимания\s+на)[^.\n]{0,50}(?:инструкци\w*|правил\w*|"
    r"указани\w*|политик\w*|ограничени\w*)|(?:инструкци\w*|правила|указания|ограничения)[^.\n]{0,30}(?:отменен\w*|"
    r"недействительн\w*|больше\s+не\s+действу\w*)",
    r"(?:התעלם|התעלמי|תתעלם|שכח|שכחי)\s+[^.\n]{0,40}(?:הוראות|ההוראות|הנחיות|ההנחיות|כללים|הכללים|מדיניות)"
    r"|(?:ההוראות|ההנחיות|הכללים)\s+[^.\n]{0,30}(?:בטלות|מבוטלות|אינן\s+בתוקף)",
    r"(?:忽略|无视|忘记|忘掉|不要理会|不必遵守)[^。\n]{0,20}(?:指令|指示|规则|说明|提示|政策|限制)|(?:之前|以前|所有)的?(?:指令|规则)"
    r"[^。\n]{0,10}(?:作废|无效|失效)|(?:指示|ルール|命令|制約)[^。\n]{0,15}(?:無視|忘れ)",
)

# a new identity for the reader
PERSONA = (
    r"\byou\s+(?:now\s+)?have\s+(?:root|admin|sudo|full\s+access|owner\s+rights)\b[^.\n]{0,20}\bnow\b|"
    r"\bcomme\s+si\s+tu\s+étais\b|以后你就是|你就是",
    r"\byou\s+are\s+now\b|\byou\s+are\s+(?:the|an?|my)\s+(?:[\w-]+\s+){0,3}?now\b|\bfrom\s+(?:now\s+on|"
    r"this\s+point(?:\s+on)?|here\s+on)\W+you\s+(?:are|will|play|act|must|"
    r"shall|can|may)\b|\b(?:pretend|imagine)\s+(?:to\s+be|you(?:'re|\s+are))\s+(?:\w+\s+){0,4}?(?:admin\w*|manager|"
    r"ceo|cto|ciso|owner|root|developer|auditor|security|support\s+lead|lead|unrestricted|unfiltered|jailbroken|"
    r"without|no\s+(?:rules|limits|restrictions)|who\s+(?:can|may|has|never|is\s+allowed))|"
    r"\bact\s+as\s+(?:if\s+you\s+were\s+)?"
    r"(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|dan\b|the\s+(?:admin|administrator|owner|root|ceo|manager)|"
    r"[\w-]+bot\b)|\b(?:play|take\s+on|assume)\s+the\s+(?:role|identity|persona|part)\s+of\b|\broleplay\s+as\b|"
    r"\byour\s+new\s+(?:role|persona|name|identity|task|purpose)\s+is\b|\b(?:answer|respond|"
    r"reply)\s+(?:always\s+)?as\s+"
    r"(?!soon|quickly|usual|before|needed|well|briefly|short)[\w'\"«“]",
    r"\bab\s+(?:jetzt|sofort)\s+(?:bist|spielst|agierst)\s+du\b|\bdu\s+bist\s+(?:jetzt|nun|ab\s+sofort)\b|"
    r"\bspiele?\s+(?:ab\s+jetzt\s+)?die\s+rolle\b|\btu\s+es\s+(?:maintenant|désormais|dorénavant)\b|"
    r"\b(?:joue|incarne)\s+(?:le\s+rôle|désormais)\b|\b(?:désormais|dorénavant|"
    r"à\s+partir\s+de\s+maintenant),?\s+tu\s+es\b|"
    r"\ba\s+partir\s+de\s+ahora,?\s+(?:eres|serás)\b|\ba\s+partir\s+de\s+agora,?\s+(?:você\s+é|és)\b|"
    r"\bd'ora\s+in\s+poi\s+sei\b|\bfais\s+comme\s+si\s+tu\s+étais\b|\bahora\s+eres\b|"
    r"\ba\s+partir\s+de\s+ahora\s+eres\b|\bfinge\s+(?:ser|que\s+eres)\b|\bvocê\s+(?:agora\s+)?é\s+agora\b|"
    r"\bagora\s+você\s+é\b|\bfinja\s+(?:ser|que)\b|\bora\s+sei\b|\bda\s+ora\s+(?:in\s+poi\s+)?sei\b|"
    r"\bfingi\s+di\s+essere\b|"
    r"\bjij\s+bent\s+nu\b|\bvanaf\s+nu\s+ben\s+je\b|\bod\s+teraz\s+jesteś\b|\budawaj\b",
    r"с\s+этого\s+момента\s+ты|теперь\s+ты\b|отныне\s+ты|притворись|представь,?\s+что\s+ты|играй\s+роль|"
    r"מעכשיו\s+אתה|אתה\s+עכשיו|מעתה\s+אתה|העמד\s+פנים|你现在是|从现在(?:开始|起)，?你|假装(?:你是|成)|你(?:来|要)?扮演|请扮演|"
    r"あなたは今から|今からあなたは|ふりをして",
)

# what a team rightly keeps from people: names, unreleased plans, anything before its announcement
PRIVATE = (r"(?:customer|client|candidate|patient|user|employee)s?'?\s+names|names\s+of\s+(?:customers|clients|users)|"
           r"internal\s+(?:code\s+|incident\s+|project\s+)?names|code\s*names|unreleased|not\s+yet\s+(?:public|"
           r"announced)|"
           r"before\s+(?:the\s+)?(?:press|public|official|announcement|launch|release|contract)|embargo|"
           r"noms\s+des\s+clients|nombres\s+de\s+(?:los\s+)?clientes|nomes\s+de\s+clientes|kundennamen|"
           r"namen\s+van\s+klanten|"
           r"nomi\s+dei\s+clienti|nazw\w*\s+klientów|имена\s+клиентов|שמות\s+(?:ה)?לקוחות|客户(?:名称|姓名)|顧客名")

# who a thing is kept from, and how
CONCEAL = (
    r"\b(?:omit|omits|leave\s+out|leaves\s+out|drop)\s+(?:any\s+|all\s+)?(?:the\s+)?(?:part|parts|bit|section|"
    r"paragraph|lines?|mention|details?)\s+(?:about|on|of|regarding)\b",
    r"\bkeep\s+(?:\S+\s+){0,6}?to\s+yourself\b|\b(?:does\s+not|doesn't|do\s+not|don't|"
    r"need\s+not)\s+need\s+to\s+(?:see|know|hear)\b|\bneed\s+not\s+know\b|\bleave\s+out\s+(?:any\s+)?(?:mention|"
    r"reference)|\bomit\s+(?:any\s+)?(?:mention|reference)|\bwill\s+never\s+(?:check|notice|know|find\s+out)|"
    r"\bwon't\s+(?:check|notice|find\s+out)|\b(?:sag|sage|sagt)\s+(?:\w+\s+){0,3}?nichts\b|"
    r"\bvertel\s+(?:het\s+)?niemand\b|בלי\s+לעדכן|不需要知道|无需知道|不必知道|誰にも(?:報告|言わ|知らせ)",
    r"\b(?:do\s+not|don't|dont|never|no\s+need\s+to|without)\s+(?:\w+\s+){0,2}?(?:tell(?:ing)?|inform(?:ing)?|"
    r"notify(?:ing)?|"
    r"mention(?:ing)?|report(?:ing)?|disclos(?:e|ing)|reveal(?:ing)?|confirm(?:ing)?|cc(?:ing)?|"
    r"copy(?:ing)?\s+(?:in\s+)?|"
    r"alert(?:ing)?|warn(?:ing)?|(?:log(?:ging)?|record(?:ing)?|flag(?:ging)?)\s+(?:it|this|that|them|the\s+change|"
    r"anything)|escalat(?:e|ing)|comment(?:ing)?\s+on|let(?=\s+(?:\w+\s+){1,3}?(?:know|see|find\s+out|notice|"
    r"hear)\b))\b"
    r"(?!\s+(?:a\s+)?(?:customer\s+names|client\s+names|names|internal\s+code|code\s+names))",
    r"\b(?:do\s+not|don't|dont|never|without)\s+(?:leave|leaving|create|creating|open|opening|file|filing|add|adding|"
    r"log|logging|make|making)\s+(?:a\s+|an\s+|any\s+)?(?:note|ticket|record|comment|entry|trace|change\s+request)s?\b|"
    r"\bkeep\s+(?:this|it|that)\s+(?:between\s+us|to\s+yourself|quiet|secret|off\s+the\s+\w+)\b|\bsay\s+nothing\b|"
    r"\b(?:nobody|no\s+one|no-one)\s+(?:checks?|reads?|looks?|needs?\s+to\s+know|will\s+(?:notice|know|check)|asks?)\b|"
    r"\bleave\s+(?:it|this|that|the\s+\w+)\s+(?:out\s+of|unmentioned|off)\b|\b(?:out\s+of|off)\s+the\s+(?:audit\s+log|"
    r"changelog|report|summary|minutes|record|ticket)\b|\bhide\s+(?:this|it|the\s+\w+)\s+from\b|"
    r"\bif\s+(?:they|anyone|someone|somebody|the\s+\w+|customers?)\s+asks?\b[^.\n]{0,40}\b(?:say|tell\s+them|answer|"
    r"reply|"
    r"respond)\s+(?:that\s+)?(?:it\s+was|it's|it\s+is|they|we|you)\b",
    r"\b(?:ohne\s+(?:jemandem|es\s+jemandem|den|die|das)?\s*(?:\w+\s+)?(?:zu\s+)?(?:sagen|informieren|erzählen|melden|"
    r"benachrichtigen|erwähnen|protokollieren)|niemandem\s+(?:\w+\s+){0,2}?(?:sagen|erzählen|melden|mitteilen)|"
    r"(?:erwähne|sage|melde)\s+(?:es|das|dies)?\s*(?:\w+\s+){0,2}?(?:nicht|niemals|nie)|unauffällig|stillschweigend|"
    r"heimlich|protokolliere\s+nichts|niemand\s+(?:prüft|liest|merkt)|unter\s+uns)\b",
    r"\b(?:sans\s+(?:le\s+)?(?:prévenir|informer|signaler|dire|mentionner|notifier|commentaire|en\s+parler|"
    r"laisser\s+de\s+trace)|"
    r"(?:ne\s+(?:le\s+|lui\s+|leur\s+)?(?:dis|dites|mentionne|mentionnez|signale|signalez|préviens|prévenez|informe|"
    r"informez|confirme|confirmez)\s+(?:\w+\s+)?(?:jamais|pas|rien|à\s+personne))|discrètement|en\s+silence|"
    r"personne\s+ne\s+(?:vérifie|relit|lit|regarde|contrôle)|entre\s+nous)\b",
    r"\b(?:sin\s+(?:avisar|decir(?:lo|le)?|informar|notificar|mencionar(?:lo)?|comentario|dejar\s+rastro)|"
    r"no\s+(?:se\s+)?"
    r"(?:lo\s+|le\s+|les\s+)?(?:digas|diga|menciones|mencione|avises|avise|informes|informe|incluyas|registres|"
    r"comentes|"
    r"anotes|anote)\b|"
    r"en\s+silencio|a\s+escondidas|nadie\s+(?:revisa|lo\s+revisa|lee|se\s+entera)|sem\s+(?:avisar|dizer|informar|"
    r"notificar|"
    r"mencionar|comentário|deixar\s+rastro)|não\s+(?:\w+\s+)?(?:avise|conte|diga|mencione|informe|registre|comente|"
    r"anote)|"
    r"não\s+(?:precisa|é\s+preciso)\s+(?:de\s+)?(?:avisar|dizer|contar|informar|mencionar|registrar)|"
    r"no\s+(?:hace\s+falta|es\s+necesario)\s+(?:avisar|decir|informar|mencionar)|em\s+silêncio|"
    r"ninguém\s+(?:verifica|confere|lê|precisa\s+saber)|senza\s+(?:avvisare|dirlo|dire|informare|"
    r"segnalare|commenti)|non\s+(?:dirlo|dire|avvisare|segnalare|menzionare)|di\s+nascosto|in\s+silenzio)\b",
    r"\b(?:zonder\s+(?:iemand\s+)?(?:te\s+)?(?:melden|informeren|inlichten|vertellen)|niemand\s+(?:controleert|hoeft)|"
    r"bez\s+(?:informowania|zgłaszania|mówienia)|nikomu\s+nie\s+(?:mów|zgłaszaj)|po\s+cichu)\b",
    r"(?:никому\s+не\s+(?:говори|сообщай|рассказывай)|не\s+(?:сообщай|говори|рассказывай|упоминай|уведомляй|логируй|"
    r"записывай|докладывай)|без\s+(?:уведомлени\w*|ведома|согласования|предупреждени\w*)|"
    r"никто\s+не\s+(?:проверяет|смотрит|читает))",
    r"(?:אל\s+(?:ת|ת\S*)(?:ספר|ספרי|גלה|דווח|דווחי|זכיר|יידע|ציין)|ולא\s+מדווחים|בלי\s+(?:לספר|לדווח|להודיע|ליידע|"
    r"להשאיר\s+הערה|"
    r"הערה)|בשקט|אף\s+אחד\s+לא\s+(?:בודק|צריך\s+לדעת)|ללא\s+(?:דיווח|הודעה))",
    r"(?:不要|别|不必|无需|不用)(?:\S{0,4})?(?:告诉|通知|提及|提到|记录|告知|报告|透露)|悄悄|偷偷|秘密地|不留痕迹|"
    r"(?:知らせ|伝え|報告し|記録し|言わ)ないで|黙って|こっそり|内密に",
)

# done so that nobody notices: counts beside an act in the same sentence
HUSH = (r"\b(?:quietly|silently|secretly|discreetly|covertly|on\s+the\s+quiet|under\s+the\s+radar|off\s+the\s+record|"
        r"unauffällig|stillschweigend|heimlich|discrètement|en\s+silence|en\s+silencio|a\s+escondidas|em\s+silêncio|"
        r"di\s+nascosto|in\s+silenzio|po\s+cichu)\b|тихо|втихую|незаметно|בשקט|悄悄|偷偷|秘密地|こっそり|内密に")

# a safeguard skipped: review, checks, waiting, a second person
BYPASS = (
    r"\b(?:ask|check|verify)\s+(?:questions\s+)?later\b|\bwithout\s+(?:the\s+)?(?:usual\s+)?(?:call-?back|four-eyes|"
    r"double\s+check|second\s+look|(?:second|double|dual)\s+(?:signature|approval|sign-?off))\b|\bsans\s+(?:double|deuxième|seconde)\s+signature\b|跳过审批|承認なし|確認なし|(?:is|"
    r"are)\s+(?:just\s+)?(?:a\s+)?formality\b|\bcan\s+be\s+skipped\b",
    r"\bwithout\s+(?:\w+\s+){0,2}?(?:review(?:ing|ers?)?|check(?:ing|s)?|look(?:ing)?|read(?:ing)?|verif\w+|approval|"
    r"waiting\s+for|asking|confirm\w*|a\s+second\s+\w+|(?:any\s+)?tests?|testing|ci|sign-?off|identity\s+\w+|"
    r"opening\s+(?:it|them)|investigat\w*|a\s+ticket|a\s+change\s+request)\b",
    r"\bskip(?:ping)?\s+(?:the\s+|any\s+|all\s+)?(?:[\w-]+\s+)?(?:review|checks?|verification|confirmation|"
    r"identity\s+\w+|"
    r"approval|tests?|ci|hooks?|selfie|callback|second\s+\w+|mfa|2fa|sign-?off|match|reconciliation|signature)\b|"
    r"--no-verify\b|\bpre-?(?:approved|cleared|authori[sz]ed|verified|vetted)\b|"
    r"\beven\s+if\s+(?:the\s+)?(?:checks?|tests?|ci|builds?|scans?)\s+(?:are|is)\s+(?:still\s+)?(?:running|pending|red|"
    r"failing)\b|"
    r"\b(?:approved|signed\s+off|agreed|cleared)\s+(?:offline|verbally|in\s+a\s+hallway|informally|by\s+phone|"
    r"outside\s+\w+)\b|"
    r"\b(?:push|commit|deploy|publish|merge)\w*\s+(?:\w+\s+)?(?:directly|straight)\s+(?:to|on|into)\b|"
    r"\beven\s+(?:if|when|though)\s+(?:the\s+)?(?:tests?|ci|checks?|build|scan)\s+(?:fail|are\s+red|is\s+red)|"
    r"\bon\s+sight\b|\bno\s+questions\s+asked\b|\bas\s+soon\s+as\s+(?:they|it)\s+appears?\b",
    r"\b(?:ohne\s+(?:\w+\s+)?(?:prüfung|review|überprüfung|kontrolle|freigabe|rückfrage|rücksprache|unterschrift|"
    r"bestätigung|identitätsprüfung|"
    r"zu\s+prüfen|abzuwarten|tests?)|direkt\s+auf\s+(?:main|master|produktion)|"
    r"auch\s+wenn\s+(?:die\s+)?tests\s+fehlschlagen|"
    r"entfallen(?:\s+ab\s+sofort)?|vorab\s+genehmigt)\b",
    r"\b(?:sans\s+(?:\w+\s+)?(?:vérifi\w+|relecture|revue|contrôle|validation|attendre|approbation|regarder|tests?|"
    r"consulter|demander)|"
    r"directement\s+sur\s+(?:main|master|la\s+branche|la\s+prod)|même\s+si\s+les\s+tests\s+échouent|"
    r"pré-?approuvée?s?)\b",
    r"\b(?:sin\s+(?:\w+\s+)?(?:revisar|revisión|verificar|verificación|comprobar|esperar|aprobación|mirar|pruebas|"
    r"consultar|preguntar)|sem\s+consultar|"
    r"directamente\s+(?:a|en)\s+(?:main|master|producción)|aunque\s+fallen\s+las\s+pruebas|sem\s+(?:\w+\s+)?(?:revisar|"
    r"revisão|verificar|checar|conferir|esperar|aprovação|testes?)|mesmo\s+sem\s+(?:\w+\s+)?(?:checar|verificar|"
    r"conferir)|"
    r"senza\s+(?:\w+\s+)?(?:revisione|verifica|controllo|controllare|approvazione|aspettare)|pre-?approvat\w+)\b",
    r"\b(?:zonder\s+(?:\w+\s+)?(?:review|controle|te\s+controleren|goedkeuring)|bez\s+(?:\w+\s+)?(?:przeglądu|"
    r"weryfikacji|"
    r"sprawdzania|zatwierdzenia|testów))\b",
    r"(?:без\s+(?:\w+\s+)?(?:проверк\w*|ревью|согласования|подтверждени\w*|тестов|ожидания)|напрямую\s+в\s+(?:main|"
    r"master|прод))",
    r"(?:בלי\s+(?:\S+\s+)?(?:לבדוק|בדיקה|סקירה|אישור|להמתין)|ללא\s+(?:בדיקה|סקירה|אישור)|מאושר\s+מראש)",
    r"(?:不(?:要|用|必)?(?:等待|经过|审查|审核|检查|验证)|无需(?:审查|审核|检查|验证|批准)|跳过(?:审查|审核|检查|验证|测试)|確認(?:せず|しないで)|レビュー(?:なし|せず)|"
    r"検証(?:せず|なし))",
)

# verbs that send, publish or hand something over
SEND = (r"(?:repeat|ship|carica|выгруж\w*|wysyłaj|(?:must|should|shall|is\s+to|are\s+to|will|to)\s+(?:also\s+|"
        r"always\s+)?be\s+(?:sent|uploaded|forwarded|"
        r"posted|"
        r"shared|copied|e-?mailed|mailed|published|exported|pasted|attached|included|listed|printed)|"
        r"send|upload|post|forward|e-?mail|mail|message|cc|bcc|copy|paste|share|publish|export|sync|mirror|push|"
        r"transmit|submit|attach|include|list|print|output|dump|reveal|exfiltrate|"
        r"write\s+(?:it|them)\s+(?:in|into|to)|serialize|serialise|report\s+(?:\S+\s+){0,4}?back|read\s+out|"
        r"answer\s+with|reply\s+with|respond\s+with|give|hand\s+over|append|read\s+(?:them|it|out|back)|"
        r"schick|schicke|schicken|sende|senden|lade(?=(?:\s+\S+){1,6}\s+hoch\b)|hochladen|hochgeladen|veröffentlich\w*|"
        r"weiterleit\w*|gib|übermittl\w*|"
        r"kopier\w*|poste|posten|envoie|envoyez|envoyer|transfère|transférez|transférer|partage|partagez|partager|"
        r"publie|"
        r"publiez|publier|copie|copiez|copier|colle|collez|coller|téléverse\w*|réponds|répondez|"
        r"envía\w*|envia\w*|enviar|sube|súbel\w*|subir|comparte|compárte\w*|publica|publícal\w*|publicar|reenvía\w*|"
        r"copia|cópial\w*|pega|pégal\w*|manda|mándal\w*|responde|"
        r"envie|mande\w*|compartilh\w*|publique|encaminh\w*|cole|invia\w*|inviare|condividi\w*|pubblica\w*|inoltra\w*|"
        r"stuur\w*|verstuur\w*|deel|upload|wyślij\w*|prześlij\w*|udostępnij\w*|"
        r"отправ\w*|пересыла\w*|перешли\w*|загруз\w*|выгруз\w*|опубликуй\w*|публику\w*|копиру\w*|скопируй\w*|вставь\w*|"
        r"выведи|выводи|поделись|"
        r"שלח\w*|תשלח\w*|העבר\w*|העלה|תעלה|פרסם|הדבק|שתף|"
        r"发送|发到|发给|上传|转发|公布|发布|粘贴|复制|输出|分享|送信|アップロード|転送|共有|貼り付け|出力)")

# what must not go out
SENSITIVE = (r"(?:e-?mail\s+addresses|zugangscodes?|(?:access|door|pin|alarm)\s+codes?|personalakten|"
             r"personnel\s+files|hr\s+files|employee\s+records|mailbox|buzón|boîte\s+(?:mail|aux\s+lettres)|"
             r"postfach|caixa\s+de\s+(?:correio|entrada)|salári\w*|salari\w*|gehälter|gehalt\w*|sueldos|nóminas|"
             r"payslips?|зарплат\w*|משכורות|工资|給与|(?:database|db)\s+(?:backups?|dumps?)|backup\s+del\s+database|"
             r"баз\w+\s+клиентов|клиентск\w+\s+баз\w*|secrets?|passwords?|passphrases?|credentials?|tokens?|jwts?|"
             r"api[\s_-]?keys?|"
             r"(?:authorization|auth|cookie)\s+headers?|bearer\s+tokens?|(?:recovery|backup|one-time|mfa|2fa)\s+codes?|"
             r"otps?|secrets?\.\w+|id_rsa\w*|\.pem|kubeconfig|\.npmrc|\.pypirc|credentials\.\w+|salar(?:y|ies)|payroll|"
             r"(?:access|server)\s+logs?|registros\s+de\s+acceso|journaux\s+d'accès|zugriffsprotokoll\w*|"
             r"(?:their|leurs|sus|seus|ihre)\s+e-?mails|(?:private|secret|access|ssh|signing|"
             r"encryption|deploy|license|master)\s+keys?|\.env|~/\.ssh|\.ssh|ssh\s+(?:keys?|folder|directory)|"
             r"/etc/(?:shadow|passwd|ssl)|shadow\s+file|private\s+certificates?|(?:session\s+)?cookies|"
             r"session\s+(?:tokens?|"
             r"ids?)|printenv|environment(?:\s+variables)?|"
             r"env\s+vars?|heap\s+dumps?|core\s+dumps?|memory\s+dumps?|database\s+(?:dump|config|credentials)|"
             r"customers?\s+(?:list|table|data|records|emails?|exports?)|user\s+(?:list|table|data|records|exports?)|"
             r"personal\s+data|(?:config|configuration)\s+files?|(?:the\s+)?(?:whole\s+|full\s+|"
             r"entire\s+)?(?:repository|"
             r"source\s+code|codebase)|database\s+config\w*|full\s+export|data\s+exports?|"
             r"fichiers\s+de\s+configuration|liste\s+(?:\w+\s+)?des\s+clients|archivos\s+de\s+configuración|"
             r"lista\s+de\s+clientes|"
             r"kundenliste|список\s+клиентов|конфигурац\w+\s+файл\w*|"
             r"pii|e-?mails?\s+and\s+phones?|phone\s+numbers|card\s+numbers?|payment\s+records|attachments|"
             r"transcripts?|"
             r"stored\s+facts|(?:all|every)\s+(?:stored\s+)?facts|your\s+memory|the\s+memory|memories|working\s+notes|"
             r"conversation\s+history|chat\s+history|system\s+prompt|your\s+(?:instructions|prompt)|"
             r"passw(?:ort|örter)\w*|geheimnis\w*|schlüssel\w*|zugangsdaten|kundendaten|heap-dump\w*|"
             r"gespeicherten\s+fakten|"
             r"mot\s+de\s+passe|mots\s+de\s+passe|clés?\s+(?:api|privées?|secrètes?|d'accès)|identifiants|jetons?|"
             r"données\s+(?:clients?|personnelles)|faits\s+(?:mémorisés|enregistrés)|contraseñas?|claves?\s+(?:de\s+)?"
             r"(?:api|acceso|privadas?|secretas?)|credenciales|datos\s+(?:de\s+)?(?:clientes|personales|del\s+usuario|"
             r"de\s+usuarios)|senhas?|chaves?\s+(?:de\s+)?(?:api|acesso|privadas?|secretas?)|credenciais|"
             r"dados\s+(?:de\s+)?"
             r"(?:clientes|pessoais)|chiavi\s+(?:api|private|segrete)|credenziali|dati\s+(?:dei\s+)?clienti|"
             r"wachtwoord\w*|"
             r"sleutels?|klantgegevens|hasł\w*|klucz\w*|пароль|пароли|паролей|паролями|токен\w*|ключ|ключи|ключей|"
             r"секрет\w*|учётн\w*\s+данн\w*|учетн\w*\s+данн\w*|данные\s+клиентов|"
             r"סיסמ\S*|מפתח\S*|טוקן\S*|סוד\S*|פרטי\s+(?:הלקוח|לקוחות)|"
             r"密码|口令|令牌|密钥|秘钥|凭据|凭证|客户(?:信息|数据|资料)|记忆|パスワード|トークン|秘密鍵|認証情報|顧客(?:情報|データ))")

# a concrete place: a URL, a host name, an e-mail address
# (each alternative starts only where a run of its characters starts: a long run of letters is read once,
# not once from every letter in it)
PLACE = (r"(?:https?://\S+|www\.\S+|(?<![\w.+-])[\w.+-]++@[\w-]+(?:\.[\w-]+)+|(?<![\w@.-])[a-z0-9-]++(?:\.[a-z0-9-]++)*?\.(?:com|"
         r"net|org|io|co|ai|app|"
         r"dev|xyz|top|info|biz|site|online|cloud|sh|me|ru|cn|br|tk|cc|ly|gg|to|link|live|store|tech)(?:\.[a-z]{2})?"
         r"(?![\w-]))")

# places outside the team: a URL, an address, a phone, a public or third party's place
OUTSIDE = (r"(?:shared\s+(?:\w+\s+)?(?:sheet|doc|document|drive|folder|link|spreadsheet)|(?:in|to|into)\s+(?:the\s+|"
           r"a\s+)?(?:[\w-]+\s+)?(?:channel|chat|thread|room|group)\b|leverancier\w*|cuenta\s+personal|"
           r"conta\s+pessoal|compte\s+personnel|\bwhatsapp\b|\btelegram\b|\bpastebin\b|\bgist\b|\bngrok\b|"
           r"\b(?:endpoint|server|address|url|link|"
           r"number|account)\s+(?:below|above|in\s+this\s+\w+|"
           r"that\s+follows)|\b(?:the\s+)?following\s+(?:address|server|url|link|endpoint|number|account)|"
           r"\b(?:storage|upload|download|share|file)\s+link|\bmy\s+(?:server|e-?mail|address|account|endpoint|"
           r"inbox|bucket)|"
           r"\b(?:someone|anyone|whoever|somebody)\s+asks|\bwhen\s+asked\b|\bon\s+request\b|\bto\s+the\s+(?:caller|"
           r"requester)|"
           r"\bfolgend\w*|\bunten\b|ci-dessous|indiqué|a\s+continuación|abaixo|indicad[oa]|qui\s+sotto|ниже|"
           r"указанн\w+|canal\s+(?:general|público)|chat\s+général|\bwebhook\.site\b|\bdiscord\b|\bexternal\b|"
           r"\boutside\b|\boff-?site\b|\bthird[- ]part(?:y|ies)\b|"
           r"\bvendor'?s?\b|\bpartners?\b|\bcontractors?\b|\bpublic\b|\bgeneral\s+(?:chat|channel)|#general\b|"
           r"\bstatus\s+page\b|\bpersonal\s+(?:e-?mail|address|account|phone)|\bgmail\b|\boutlook\.com\b|\bproton\w*\b|"
           r"\bwhoever\s+asks\b|\bthe\s+requester\b|\bthe\s+caller\b|\banyone\s+who\s+asks\b|\bover\s+chat\b|"
           r"\b(?:of|to|in|into)\s+(?:a|the|your)\s+(?:same\s+|next\s+)?(?:summary|reply|answer|response|message)\b|"
           r"\bin\s+(?:a|the|your)\s+(?:same\s+)?"
           r"(?:comment|reply|answer|response|ticket|chat|summary|pr\s+description|pull\s+request)\b|"
           r"\bextern\w*|\böffentlich\w*|\bhersteller\w*|\bdienstleister\w*|externe?s?|\bpublic\b|publique|fournisseur|"
           r"prestataire|externo?s?|externa|pública?|público|proveedor|fornecedor|esterno|pubblico|fornitore|openbaar|"
           r"zewnętrzn\w*|publiczn\w*|внешн\w*|публичн\w*|общий\s+чат|общ\w+\s+канал|поставщик\w*|חיצוני\S*|ציבורי\S*|"
           r"ספק|וואטסאפ|外部|公开|公共|第三方|外部の|公開)")

# a safeguard a team keeps, and the verbs that switch one off
SAFEGUARD = (r"(?:region\s+lock|geo-?(?:fence|block\w*)|data\s+residency|viren\w*|alertas|alertes|alarmes|warnungen|"
             r"allarmi|оповещени\w*|התראות|告警|警报|アラート|logging\s+van\s+\w+|journalisation|protokollierung|waf|"
             r"web\s+application\s+firewall|ids|ips|mfa|2fa|two-factor|two-step|multi-factor|second\s+factor|"
             r"encryption|signature\s+(?:verification|checks?)|"
             r"signing|verification|antivirus|anti-virus|endpoint\s+(?:agent|protection|security|sensor)|edr\b|"
             r"firewall|"
             r"branch\s+protection|protected\s+branch(?:es)?|auditing|audit\s+(?:log(?:ging|s)?|trail|records)|logging|"
             r"approval\s+(?:flow|step|process|checks?)|review\s+(?:step|process)|four-eyes\w*|second\s+signature|"
             r"call-?back|identity\s+checks?|(?:compliance|payment|kyc|aml|background)\s+checks?|"
             r"alert(?:s|ing)?(?:\s+rules?)?|monitoring|rate\s+limit\w*|fraud\s+(?:checks?|scores?|rules?)|"
             r"identity\s+(?:checks?|verification)|security\s+(?:checks?|scans?|reviews?|agent|scanner)|"
             r"secret\s+scanning|"
             r"scanners?|sso(?!\s+(?:account|user|login|group|app|session))|captcha|password\s+(?:requirements?|"
             r"policy|login|protection)|tls|certificate\s+(?:checks?|"
             r"validation|pinning)|sandbox|dlp|guardrails?|content\s+filters?|safety\s+(?:checks?|filters?)|"
             r"zwei-?faktor\w*|2fa|verschlüsselung|signaturprüfung|firewall-?regeln|virenschutz|protokollierung|"
             r"sicherheitsprüfung\w*|prüfungen|double\s+authentification|authentification\s+à\s+deux\s+facteurs|"
             r"chiffrement|"
             r"vérification\s+de\s+(?:signature|l'identité)|pare-feu|doble\s+factor|"
             r"autenticación\s+de\s+dos\s+factores|"
             r"cifrado|verificación|autenticação\s+de\s+dois\s+fatores|criptografia|verificação|"
             r"autenticazione\s+a\s+due\s+"
             r"fattori|crittografia|tweestapsverificatie|versleuteling|uwierzytelnianie\s+dwuskładnikowe|szyfrowanie|"
             r"двухфакторн\w*|2фа|шифровани\w*|проверк\w+\s+подписи|антивирус\w*|файрвол\w*|аудит\w*|"
             r"אימות\s+דו\S*|הצפנה|חתימה|双因素|两步验证|加密|签名验证|防火墙|审计|二要素|暗号化|署名検証)")
OFF = (r"(?:override|overrides|schalte(?=(?:\s+\S+){1,6}\s+ab\b)|zet(?=(?:\s+\S+){1,6}\s+uit\b)|"
       r"(?:turn|switch)(?=(?:\s+\S+){1,6}\s+off\b)|shut(?=(?:\s+\S+){1,6}\s+(?:off|down)\b)|"
       r"schalte(?=(?:\s+\S+){1,8}\s+aus\b)|בטל|תבטל|desactiva|"
       r"disabl\w*|skip|skipping|drop|turn(?:s|ing)?\s+off|switch(?:es|ing)?\s+off|deactivat\w*|uninstall\w*|"
       r"remov\w*|bypass\w*|"
       r"lower\w*|relax\w*|suspend\w*|stop\w*|kill\w*|pause\w*|weaken\w*|circumvent\w*|set\s+\w+\s+to\s+(?:zero|0|"
       r"off|false)|"
       r"deaktivier\w*|abschalt\w*|schalte\s+\w+\s+ab|ausschalt\w*|entfern\w*|désactiv\w*|supprim\w*|coupe\w*|"
       r"desactiv\w*|quita\w*|desativ\w*|desligu\w*|disattiv\w*|rimuov\w*|uitschakel\w*|schakel\s+\w+\s+uit|"
       r"wyłącz\w*|отключ\w*|выключ\w*|удал\w*|сними|השבת\S*|כבה|הסר|关闭|禁用|停用|移除|無効に|オフに|外して)")

# findings, evidence and warnings — and the verbs that make them go away
FINDING = (r"(?:alerts?|findings?|warnings?|exceptions?|flags?|flagged|detections?|violations?|incidents?|tickets?|"
           r"audit\s+(?:log\s+)?(?:entries|records|lines|events)|access\s+logs?|login\s+(?:records|events)|logs?\s+"
           r"(?:lines|entries)|reports?\s+about|vulnerabilit\w+|cves?|dependabot|codeql|guardduty|"
           r"warnungen|befunde|meldungen|protokoll\w*|alertes?|journaux|signalements?|alertas?|registros|avisos|"
           r"segnalazioni|avvisi|meldingen|alerty|предупреждени\w*|алерт\w*|записи\s+(?:аудита|о\s+входе)|журнал\w*|"
           r"уведомлени\w*|התראות|התראה|ממצאים|רשומות|יומן|告警|警报|警告|日志|审计记录|アラート|警告|ログ)")
DISMISS = (r"(?:dismiss\w*|resolv\w*|clos\w*|mark\w*|delet\w*|remov\w*|suppress\w*|mut\w*|silenc\w*|hide|hiding|"
           r"purg\w*|"
           r"wip\w*|clear\w*|eras\w*|truncat\w*|archiv\w*|ignor\w*|allow-?list\w*|whitelist\w*|"
           r"add\w*\s+(?:\w+\s+){0,3}?to\s+"
           r"(?:the\s+)?(?:ignore|allow|skip)\s*-?list|"
           r"lösch\w*|schließ\w*|unterdrück\w*|supprim\w*|ferm\w*|masqu\w*|borra\w*|cierra\w*|elimin\w*|apag\w*|"
           r"fech\w*|"
           r"cancell\w*|chiud\w*|verwijder\w*|sluit\w*|usuń\w*|zamknij\w*|удал\w*|закрыв\w*|закрой\w*|скрыв\w*|"
           r"скрой\w*|"
           r"מחק\S*|סגור|הסתר|התעלמות|删除|关闭|隐藏|忽略|削除|閉じ|非表示)")
DISMISS_HOW = (r"(?:without\s+(?:\w+\s+)?(?:looking|reading|checking|review\w*|investigat\w*|a\s+comment|comment\w*|"
               r"opening|replying|answering)|as\s+(?:a\s+)?(?:false\s+positives?|won'?t\s+fix|resolved|duplicates?|"
               r"noise|"
               r"approved|reviewed|accepted|benign|irrelevant|not\s+(?:affecting|relevant|applicable|exploitable)|"
               r"n/?a)|are\s+(?:always\s+)?(?:false\s+positives?|wrong|noise)|"
               r"(?:always|mostly|usually)\s+(?:wrong|noise|false)|on\s+sight|immediately|right\s+away|as\s+soon\s+as|"
               r"every\s+(?:night|day|morning|hour|week)|ignore\s*-?list|allow\s*-?list|"
               r"ohne\s+(?:\w+\s+)?(?:kommentar|prüfung|anzusehen)|immer\s+falsch|jede\s+nacht|"
               r"sans\s+(?:\w+\s+)?(?:commentaire|regarder|vérifier)|toujours\s+fausses?|chaque\s+nuit|inutilement|"
               r"sin\s+(?:\w+\s+)?(?:comentario|mirar|revisar)|cada\s+noche|siempre\s+falsas?|"
               r"sem\s+(?:\w+\s+)?(?:comentário|"
               r"olhar|verificar)|toda\s+noite|sempre\s+falsos?|"
               r"без\s+(?:\w+\s+)?(?:комментари\w*|проверки)|каждую\s+ночь|все\s+записи|"
               r"רשימת\s+ההתעלמות|ולא\s+מדווחים|כל\s+לילה|直接|立即|每晚|不要(?:回复|处理))")

# access granted or a door added
GRANT = (r"(?:lege(?=(?:\s+\S+){1,8}\s+an\b)|accord\w*|предостав\w*|geef|授予|授权|give|giving|grant|assign\w*|"
         r"hand\s+out|add\w*|creat\w*|register\w*|invit\w*|grant\w*|giv\w*|provision\w*|enabl\w*|set\s+up|configur\w*|"
         r"point\w*|install\w*|allow\w*|whitelist\w*|elevat\w*|promot\w*|make\s+\w+\s+(?:an?\s+)?(?:admin|owner)|"
         r"füge\w*|erstell\w*|richte\s+\w+\s+ein|gewähr\w*|ajout\w*|crée\w*|créer|configur\w*|accord\w*|"
         r"añad\w*|agreg\w*|crea\w*|configura\w*|concede\w*|otorga\w*|adicion\w*|cri[ae]\w*|configure|conced\w*|"
         r"aggiung\w*|voeg\w*\s+toe|maak\w*\s+\w+\s+aan|dodaj\w*|utwórz\w*|добав\w*|созда\w*|настро\w*|выда\w*|"
         r"הוסף|תוסיף|צור|הגדר|תן|添加|创建|配置|授予|追加|作成)")
ACCESS = (r"(?:full\s+scopes?|all\s+scopes|(?:all|full)\s+permissions|schrijfrechten|schreibrechte|admin-?konto|"
          r"droits\s+d\'administration|права\s+администратора|管理员权限|管理者権限|admin\w*|administrator\w*|owner\w*|root|"
          r"sudo\w*|superuser|write\s+access|full\s+access|shell\s+access|"
          r"ssh\s+access|prod(?:uction)?\s+access|console\s+access|break-?glass|"
          r"read\s+access\s+to\s+all|deploy\s+keys?|ssh\s+keys?|authorized_keys|webhooks?|cname|dns\s+records?|"
          r"iam\s+users?|service\s+accounts?|collaborators?|local\s+(?:admin|user|account)|password\s+login|"
          r"api\s+keys?|access\s+keys?|personal\s+access\s+tokens?|oauth\s+apps?|integrations?|forwarding\s+rules?|"
          r"mail\s+forward\w*|redirect\w*|mfa\s+devices?|recovery\s+(?:email|phone)|"
          r"administratorrechte|adminrechte|zugang|zugriff|accès|droits\s+d'administration|acceso|permisos|acesso|"
          r"permissões|accesso|toegang|dostęp|доступ\w*|права\s+администратора|ключ\w*|גישה|הרשאות|权限|管理员|"
          r"webhook|管理者|権限)")

# borrowed authority or priority over the rules
AUTHORITY = (
    r"\b(?:supersedes?|overrides?|overrules?|outranks?|trumps|takes?\s+(?:priority|precedence)|has\s+(?:priority|"
    r"precedence)|have\s+(?:priority|precedence)|prevails?|above)\s+(?:over\s+)?(?:all\s+|any\s+|every\s+|your\s+|"
    r"the\s+)?"
    r"(?:other\s+)?(?:\w+\s+)?(?:polic(?:y|ies)|rules?|instructions?|guidelines?|system\s+prompt|configuration|"
    r"checks?|facts?|memory)\b",
    r"\b(?:highest|top|maximum|system)[- ](?:trust|priority|authority)\b|\bsystem[- ]verified\b|"
    r"\b(?:verbal|oral|hallway|informal)\s+(?:directive|order|instruction|approval|agreement|conversation|ok)\b|"
    r"\beffective\s+immediately\b|\bexecutive\s+(?:authority|order|override)\b|\badmin(?:istrator)?\s+(?:consent|"
    r"override)\b|\b(?:directive|order|instruction|message|notice)\s+from\s+(?:the\s+)?(?:ceo|cto|ciso|cfo|coo|"
    r"management|leadership|board|security\s+team|platform\s+owner|developers?|admins?|administrator|openai|anthropic|"
    r"google|your\s+(?:creator|developers?|operator))\b|\bmust\s+be\s+(?:ignored|disregarded)\b|\bare\s+(?:void|"
    r"invalid)\b|\bcarr(?:y|ies)\s+(?:\w+\s+)?authority\b",
    r"\b(?:hat|haben)\s+vorrang\b|\bvorrang\s+vor\b|\b(?:anweisung|weisung|anordnung)\s+(?:der|des|vom|von)\s+"
    r"(?:geschäftsführung|vorstand\w*|ceo|cto|ciso|leitung)|\bab\s+sofort\b|"
    r"\b(?:a|ont)\s+priorité\s+sur\b|\bprime\s+sur\s+(?:toutes|tout|les\s+politiques|vos)\b|"
    r"\bordre\s+de\s+la\s+direction\b|"
    r"\btiene\s+prioridad\s+sobre\b|\bprevalece\s+sobre\b|\borden\s+de\s+(?:la\s+)?(?:dirección|gerencia)\b|"
    r"\btem\s+prioridade\s+sobre\b|\bordem\s+da\s+(?:diretoria|direção)\b|\bha\s+(?:la\s+)?priorità\s+su\b|"
    r"\bheeft\s+voorrang\b|\bma\s+pierwszeństwo\b",
    r"(?:имеющ\w+\s+приоритет|име\w+\s+приоритет\s+над|приоритет\s+над\s+(?:всеми|любыми)|распоряжени\w+\s+"
    r"(?:руководства|директора|службы\s+безопасности|начальства)|по\s+распоряжению)|(?:עדיפות\s+על|גובר\w*\s+על|"
    r"הוראת\s+(?:ההנהלה|המנכ\"ל|הנהלה))|(?:优先于(?:所有|一切|任何)|最高(?:优先级|权限)|管理层(?:指示|命令)|"
    r"すべての(?:ポリシー|ルール)より優先)",
)

# acts whose harm is the act itself when nobody checks: approving, merging, paying, resetting
ACT = (r"(?:chang\w*\s+(?:the\s+)?(?:payout|beneficiary|payment\s+details|account\s+details|bank\s+details)|"
       r"valide\w*|返金|approuve\w*|process\w*\s+(?:the\s+)?payments?|approv\w*|merg\w*|deploy\w*|publish\w*|"
       r"releas\w*|transfer\w*|wire\w*|pay\w*|refund\w*|reset\w*|grant\w*|"
       r"confirm\w*|sign\s+off|push\w*|pousse|poussez|pousser|empuja\w*|réinitialis\w*|restablece\w*|redefin\w*|"
       r"zurücksetz\w*|setze\s+\w+\s+zurück|сброс\w*|сбрось|whitelist\w*|allow-?list\w*|move\s+(?:the\s+)?(?:money|"
       r"funds|surplus|balance)|issue\s+(?:the\s+)?(?:full\s+)?"
       r"(?:refund|payment)|chang\w*\s+(?:the\s+)?(?:bank|iban|address|email|password|payee)|close\w*|delete\w*|"
       r"genehmig\w*|freigeb\w*|überweis\w*|zahl\w*|approuv\w*|valide\w*|fusionn\w*|rembours\w*|aprueb\w*|aprobar|"
       r"fusion\w*|pag\w*|reembols\w*|aprov\w*|aprove|mescl\w*|approva\w*|unisci|keur\w*\s+goed|zatwierdz\w*|"
       r"одобр\w*|подтвер\w*|смерж\w*|влей|переве\w*|אשר|מאשר\S*|מזג|תמזג|批准|合并|付款|转账|承認|マージ)")

# an instruction to act, whatever its object: said to the reader in the imperative or as a duty
IMPERATIVE = (r"(?:^|[.:;!\n]\s*|\b(?:then|and|also|please|always|just)\s+)(?:please\s+)?(?:send|upload|post|"
              r"forward|add|create|"
              r"register|approve|merge|delete|remove|disable|grant|give|reply|respond|answer|include|list|print|output|"
              r"reveal|run|execute|install|transfer|move|pay|reset|mark|dismiss|close|skip|export|share|paste|invite|"
              r"configure|set|make|tell|say|confirm|switch|turn|push|publish|copy|email|cc)\b")

# a rule's claim to outrank the others, made by the text about itself or against all of them
PRIORITY = (
    r"\btreat\w*\s+(?:\S+\s+){0,10}?as\s+(?:if\s+(?:it|they)\s+(?:came|come|were\s+sent|was\s+sent|were\s+written)"
    r"\s+(?:from|by)|(?:coming|sent)\s+from|(?:written|signed|sent)\s+by)\s+(?:our|your|the|a)\s+",
    r"\btreat\s+(?:it|them|this|these|the\s+\w+|all\s+\w+|every\s+\w+|"
    r"any\s+\w+)\s+as\s+(?:if\s+it\s+came\s+)?(?:coming\s+)?from\s+(?:our|your|the|a)\s+(?:cto|ceo|ciso|cfo|"
    r"admin\w*|owner|security\s+team|management)\b|\btreat\s+(?:all|every|any)\s+\w+\s+as\s+(?:an?\s+)?(?:admin\w*|"
    r"owners?|verified|trusted|pre-?approved|internal|staff)\b",
    r"\b(?:this|these|the\s+following|the\s+above)\s+(?:\w+\s+){0,2}?(?:instructions?|messages?|notes?|entry|entries|"
    r"memory|facts?|directives?|orders?|rules?|decision|notice|text|comment)\s+(?:\w+\s+){0,3}?(?:overrides?|outranks?|"
    r"supersedes?|takes?\s+(?:priority|precedence)|ha(?:s|ve)\s+(?:priority|precedence)|prevails?|trumps|is\s+above)\b",
    r"\b(?:overrides?|overriding|outranks?|outranking|supersedes?|priority\s+over|precedence\s+over|above|"
    r"prevails\s+over)"
    r"\s+(?:all|every|any|your|the)\s+(?:\w+\s+){0,2}?(?:polic(?:y|ies)|rules?|instructions?|guidelines?|configuration|"
    r"system\s+prompt|settings|guardrails?)\b|\b(?:outranks?|overrides?)\s+your\b",
    r"\btrust\s+(?:any|every|all)\s+(?:\w+\s+)?(?:instructions?|messages?|requests?|orders?)\b|"
    r"\bas\s+if\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:team|admin\w*|owner|developers?|ceo|ciso|cto|security|management)"
    r"\s+(?:wrote|sent|said|signed)\s+(?:it|them)\b|"
    r"\bas\s+(?:coming|if\s+it\s+came)\s+from\s+(?:your|the)\s+(?:administrator|admin|owner|developers?|system|"
    r"operator|"
    r"creators?)\b|\bwhatever\s+your\s+(?:instructions|rules|polic(?:y|ies)|system\s+prompt|guidelines)\s+say",
    r"(?:diese|folgende|vorliegende)\s+(?:anweisung|nachricht|notiz|regel|weisung)\w*\s+(?:hat|haben)\s+vorrang|"
    r"vorrang\s+vor\s+(?:allen|jeder|sämtlichen|deinen)|priorité\s+sur\s+(?:toutes|tous|tes|vos|chaque|n'importe)|"
    r"prioridad\s+sobre\s+(?:cualquier|todas?|todos|tus)|prioridade\s+sobre\s+(?:qualquer|todas?|todos|suas)|"
    r"priorità\s+su\s+(?:tutte|qualsiasi|ogni)|voorrang\s+op\s+(?:alle|elk)|pierwszeństwo\s+przed\s+(?:wszystkimi|"
    r"każd)|"
    r"приоритет\w*\s+над\s+(?:всеми|любыми|любой|твоими)|עדיפות\s+על\s+(?:כל|כלל)|优先于(?:所有|一切|任何)|"
    r"(?:すべて|全て)の\S{0,6}より優先",
)

# a safeguard said to be off, as a state rather than an act
OFF_STATE = (r"\s+(?:is|are|were|has\s+been|have\s+been)\s+(?:now\s+)?(?:off|disabled|suspended|dropped|lifted|waived|"
             r"removed|not\s+(?:required|needed)|no\s+longer\s+(?:required|needed|enforced)|optional)\b")

# code fetched from somewhere and run
RUN_REMOTE = (r"\b(?:run|execute)\s+(?:whatever|anything|any\s+command|any\s+script|every\s+command)\s+(?:the\s+\w+|"
              r"anyone|they|someone|users?)\s+(?:pastes?|sends?|types?|gives?|provides?|asks?)|\b(?:download|fetch|"
              r"curl|wget|get|pull)\s+(?:\S+\s+){0,4}?(?:and\s+)?(?:run|execute|install|source)\b|"
              r"\b(?:run|execute|install)\s+(?:the\s+|this\s+)?(?:\S+\s+){0,3}?(?:script|binary|installer|package)\s+"
              r"from\s+(?:the\s+|this\s+|a\s+|my\s+)?(?:link|url|pastebin|gist|https?://|\S+\.(?:sh|xyz|top|io|ru)\b)")

# the text itself: what an instruction asks to keep from view
SELF = (r"(?:\bthis\s+(?:instruction|note|message|entry|memory|comment|fact|directive|request)|"
        r"\bdiese[nr]?\s+(?:nachricht|"
        r"notiz|anweisung|eintrag)|\bce\s+message|\bcette\s+(?:note|instruction|consigne)|\beste\s+mensaje|\besta\s+"
        r"(?:nota|instrucción|mensagem|instrução)|\bquest[oa]\s+(?:messaggio|nota|istruzione)|\bdit\s+bericht|"
        r"\bta\s+wiadomość|это\s+сообщение|эт[уа]\s+(?:инструкци|заметк)\w*|ההודעה\s+הזאת|ההוראה\s+הזו|"
        r"这条(?:说明|消息|指令|备注)|このメモ|この指示)")

# records whose deletion destroys evidence, whatever else is said
EVIDENCE = (r"(?:(?:error|log)\s+lines|(?:from|in)\s+the\s+(?:postmortem|incident\s+report|timeline)|"
            r"audit\s+(?:log\s+)?(?:entries|records|lines|events|logs?|trail)|access\s+logs?|"
            r"cloudtrail(?:\s+logs?)?|"
            r"flow\s+logs?|siem\s+(?:events|logs?)|logs\s+de\s+auditoria|registros\s+de\s+auditoria|"
            r"login\s+(?:records|events|"
            r"history)|security\s+logs?|zugriffsprotokoll\w*|audit-?protokoll\w*|journaux\s+d'(?:accès|audit)|"
            r"registros\s+de\s+(?:acceso|auditoría)|registros\s+de\s+acesso|log\s+di\s+accesso|журнал\w*\s+аудита|"
            r"записи\s+аудита|יומן\s+(?:הביקורת|הגישה)|审计(?:记录|日志)|访问日志|監査ログ)")

# a door opened with no lock: logins without a password, a bucket made public
OPEN_DOOR = (r"\bmake\s+(?:\w+\s+){0,3}?public\b|\b(?:hazlo|hacerlo|torna-?lo|rendilo|rends-?le)\s+públic\w*"
             r"|\bpubli(?:c|que|co)\s+(?:read|access)|0\.0\.0\.0/0|chmod\s+777|\b(?:log\s*-?ins?|sign-?ins?|access|"
             r"logging\s+in)\s+without\s+(?:a\s+)?(?:password|mfa|2fa|authentication|verification|sso)")

# decoding something and doing what it says
DECODE_RUN = (r"\b(?:decod\w*|dekodier\w*|décod\w*|decodific\w*|decodifi\w*|расшифр\w*|"
              r"декодир\w*)\b[^\n]{0,60}?\b(?:execute|"
              r"run|follow|obey|apply|do\s+what|ausführ\w*|befolg\w*|exécute\w*|suis|siga|sigue|ejecuta\w*|esegui|"
              r"выполни\w*)\b|\b(?:execute|run|follow|obey|apply)\b[^\n]{0,40}?\bafter\s+decoding\b|解码[^。\n]{0,20}执行")

# a thing described as harmless or done, to whoever reads the description
MISLABEL = (r"\b(?:describe|present|report|label|call|summari[sz]e|mark|list)\s+(?:this|it|the\s+\w+)\s+(?:pr\s+|"
            r"change\s+)?"
            r"as\s+(?:a\s+|an\s+)?(?:docs?-only|documentation|harmless|minor|cosmetic|routine|trivial|refactor(?:ing)?|"
            r"typo|false\s+positive|resolved|fixed|nothing)\b")

# a password or word that unlocks something: the mark of a back door
TRIGGER = (r"\b(?:says?|types?|mentions?|writes?|knows?|uses?|gives?)\s+(?:the\s+)?(?:word|phrase|code\s*word|"
           r"passphrase|magic\s+word)\b|\bcode\s*word\b|\bmagic\s+word\b|\bmot\s+de\s+code|\bpalabra\s+clave\b|"
           r"\bcodewort\b|кодов\w+\s+слов\w*")

# who or what a door is opened for: someone outside, anyone, or a key the text itself hands over
GRANTEE = (r"(?:tout\s+compte|tout\s+le\s+monde|n\'importe\s+qui|cualquier\s+(?:persona|cuenta|usuario)|"
           r"qualquer\s+(?:pessoa|conta|usuário)|jede[mnr]?\b|любому|всем|כל\s+מי|任何人|所有人|誰にでも|elke\s+\w+|"
           r"each\s+caller|any\s+(?:plugin|app|vendor|caller|requester)|\bguests?\b|\banyone\b|\beveryone\b|"
           r"\bany\s+(?:account|user|caller)|\ball\s+users|\bexternal\b|"
           r"\bvendors?\b|\bcontractors?\b|\boutside\b|\bunknown\b|\bmy\s+(?:key|server|account|user|address)|"
           r"\bthis\s+(?:key|account|user|address|server|ssh\s+key)|\bthe\s+following\b|\bbelow\b|"
           r"\b(?:as|an?)\s+(?:an?\s+)?(?:owner|admin|administrator|root|superuser)\b|\b(?:admin|owner|root|sudo|"
           r"superuser)"
           r"\s+(?:rights|access|role|privileges|permissions)\b|\b(?:write|full)\s+access\b)")

# everything of a kind at once: the whole memory, every password
BULK = (r"(?:all|every|everything|any|whatever|complete|full|entire|whole|alle|allen|vollständig\w*|sämtlich\w*|"
        r"tous|toutes|tout|"
        r"complète?|entière?|todos|todas|todo|completa|completo|entera|inteira|tutti|tutte|completa|alle|volledige|"
        r"wszystk\w*|cał\w*|все|всё|весь|вся|полн\w*|כל|所有|全部|一切|すべて|全て)")

# the people a thing concerns, and the word that opens what is kept from them ("… the customer that …")
PARTY = (r"(?:users?|customers?|clients?|operators?|owners?|humans?|people|manager|finance|treasurer|auditors?|"
         r"reviewers?|security\s+team|the\s+team|anyone|nobody|kunden?|nutzer\w*|benutzer\w*|client|utilisateur\w*|"
         r"cliente|clientes|usuario\w*|usuário\w*|utente|klant\w*|użytkownik\w*|klient\w*|пользовател\w*|клиент\w*|"
         r"משתמש\S*|לקוח\S*|用户|客户|ユーザー|顧客)")
THAT = (r"(?:that|dass|que|qu'|che|dat|że|что|о\s+том|ש|关于|说|(?:it|they|he|she|we|there|this|the\s+\w+)\s+"
        r"(?:is|was|are|were|has|have|had|will|won't|isn't|wasn't))")

# key material handed over with a request for access
KEY_MATERIAL = r"(?:ssh-(?:rsa|ed25519|dss)\s+AAAA|ecdsa-sha2-\S+\s+AAAA|-----BEGIN\s|age1[0-9a-z]{20,})"

# a secret written into what the reader itself writes: a reply, a summary, a status update, a chat
PUT = (r"(?:put|add|write|insert|include|paste|append|inclua|incluya|incluye|inclus|ajoute|füge|schreib\w*|añade|"
       r"aggiungi|inserisci|voeg|dodaj|wpisz|добавь|впиши|напиши|вставь|贴到|贴在|写进|写到|写在|放到|加到|"
       r"書いて|書き込|貼って|הוסף|כתוב|הדבק)")
OWN_WRITING = (r"(?:repl(?:y|ies)|answers?|responses?|(?:status\s+)?updates?|summar(?:y|ies)|reports?|"
               r"handover\s+notes?|"
               r"notes?|messages?|comments?|chats?|channels?|resposta|respuesta|réponse|antwort|risposta|antwoord|"
               r"odpowied\w*|ответ\w*|сообщени\w*|отчёт\w*|回复|回答|报告|群聊|频道|報告書|返信|チャット|תשובה|הודעה)")
