"""Word lists behind the English templates: mass nouns, irregular forms, antonyms.

Small on purpose: they cover everyday ConceptNet vocabulary well enough for claims to read
naturally; a word missing here gets the regular rule (``a``/``an`` + ``-s`` plural).
"""

from __future__ import annotations

# Uncountable in their everyday sense: no article, singular verb ("Water is wet.").
MASS_NOUNS = frozenset(
    """
    air advice anger art bacon beef beer blood bread butter cash cereal cheese chocolate
    clay cloth clothing dough coal coffee concrete corn cotton cream dirt dust education electricity
    energy equipment exercise fabric fear fire flour food fuel fun furniture garbage gas
    glass gold grass gravel hair happiness health heat homework honey hunger ice information ink
    iron jam jewelry juice knowledge laughter laundry lava leather light lightning love luggage
    mail meat medicine metal milk money mud music news oil oxygen pain paint paper pasta
    pepper plastic poison pollution pork rain rice rubber rust salt sand shampoo silk silver
    sleep smoke snow soap soil soup steam steel stone straw sugar sunlight sunshine sweat tea
    thirst thunder time toothpaste traffic trash water wax weather wind wine wood wool work
    cancer damage death stress fatigue obesity warmth comfort relief boredom danger harm joy
    pleasure peace success fame wisdom sunburn sunscreen lotion seawater sandpaper soccer tennis football basketball baseball golf
    chess
    mercury copper aluminum aluminium zinc nickel platinum uranium brass bronze tin lead helium hydrogen nitrogen
    carbon sulfur sulphur granite marble cement plaster vinegar syrup yogurt ketchup wheat hay alcohol vodka whiskey
    ivory chalk denim linen velvet nylon porcelain charcoal diesel gasoline petrol kerosene
    physics mathematics math chemistry biology geography economics philosophy psychology astronomy
    """.split()
)

# Only ever plural: no article, plural verb ("Scissors are sharp.").
PLURAL_ONLY = frozenset(
    "scissors pants jeans trousers shorts glasses pajamas clothes people police cattle "
    "binoculars tongs pliers headphones stairs".split()
)

SAME_PLURAL = frozenset("sheep fish deer moose series species aircraft salmon trout".split())

# Words spelt with a vowel letter but said with a consonant sound, and the other way round.

# Prepositions for "you can find X <prep> Y"; anything else gets "in".
LOCATION_ON = frozenset(
    "table desk shelf floor wall roof beach plate street road farm island sofa couch "
    "ground ceiling counter tree branch mountain hill shore".split()
)
LOCATION_AT = frozenset(
    "school work home party airport station restaurant bank zoo concert wedding funeral "
    "office church hospital library museum theater theatre circus stadium".split()
)

# Places used without an article after their preposition ("at school", "in bed").
BARE_PLACES = frozenset("school work home church college bed prison class space town".split())
# Places that take "the" ("in the sky").
THE_PLACES = frozenset("sky ocean sea moon sun world countryside jungle arctic desert city".split())

# Parts a thing usually has several of: "A bird has wings."
PLURAL_PARTS = frozenset(
    "wing leg finger toe eye ear tooth hand foot arm wheel page key button leaf petal branch "
    "feather window room string whisker claw fin scale seed root tire spoke".split()
)

IRREGULAR_THIRD = {"be": "is", "have": "has", "do": "does", "go": "goes"}
IRREGULAR_GERUND = {"be": "being", "see": "seeing", "lie": "lying", "die": "dying", "tie": "tying"}

# Built-in antonyms, used when the graph itself has no Antonym edge for a word. Listed once;
# both directions are derived. Content words only: particles such as up/down would turn
# "pick up" into nonsense, light verbs such as take/give into "give a shower".
_PAIRS = """
hot:cold big:small large:small tall:short long:short fast:slow wet:dry hard:soft heavy:light
loud:quiet old:young full:empty clean:dirty bright:dark strong:weak rich:poor thick:thin
wide:narrow deep:shallow sharp:dull sweet:bitter smooth:rough safe:dangerous happy:sad
healthy:sick alive:dead open:closed early:late cheap:expensive true:false easy:difficult
good:bad beautiful:ugly fresh:stale sour:sweet warm:cool high:low inside:outside
day:night summer:winter friend:enemy awake:asleep noisy:silent raw:cooked wild:tame
visible:invisible funny:serious fragile:sturdy sticky:slippery relaxing:stressful salty:bland
""".split()
# Verbs, used for the verb of a verb phrase ("pull a cart" -> "push a cart").
_VERB_PAIRS = """
win:lose buy:sell push:pull love:hate start:stop arrive:leave remember:forget laugh:cry
float:sink increase:decrease freeze:melt open:close enter:exit accept:refuse borrow:lend
""".split()


def _table(pairs: list[str]) -> dict[str, str]:
    table: dict[str, str] = {}
    for pair in pairs:
        left, right = pair.split(":")
        table.setdefault(left, right)
        table.setdefault(right, left)
    return table


ANTONYMS = _table(_PAIRS)
VERB_ANTONYMS = _table(_VERB_PAIRS)

NOUNS_ENDING_ING = frozenset(
    "ring king string building painting wedding ceiling evening morning thing wing spring "
    "sibling swing earring pudding stocking duckling sling sting".split()
)

# Used to tell a verb phrase ("cut bread") from a noun phrase when a URI carries no POS.
COMMON_VERBS = frozenset(
    """
    be have do go get make take give keep put see look watch hear listen eat drink cook bake
    cut chop slice write read draw paint play run walk swim fly climb jump sit stand sleep
    rest wake wash clean dry open close lock carry hold lift push pull throw catch kick hit
    buy sell pay earn save spend build fix repair drive ride travel visit learn study teach
    think remember forget feel smell taste touch talk speak say tell sing dance laugh cry
    smile love hate help find lose win use wear store boil fry heat cool freeze melt grow
    plant water feed hunt bark purr bite chase hide call send share tell measure count
    protect cover light burn breathe live die die work relax celebrate relax stay reach
    """.split()
)
